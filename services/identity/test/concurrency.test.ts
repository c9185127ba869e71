import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { createOrganization, uniqueEmail } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("concurrent administrative calls", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  it("creating the same user twice at once yields one user and at most a retryable conflict", async () => {
    const email = uniqueEmail("race");
    const results = await Promise.allSettled([
      identity.client.users.createUser({ email, displayName: "" }),
      identity.client.users.createUser({ email, displayName: "" }),
      identity.client.users.createUser({ email, displayName: "" }),
    ]);
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toMatchObject({ code: "conflict" });
    }
    const ids = new Set(results.flatMap((result) => (result.status === "fulfilled" ? [result.value.user!.id] : [])));
    expect(ids.size).toBe(1);
    expect((await identity.client.users.createUser({ email, displayName: "" })).created).toBe(false);
  });

  it("adding the same new user to an organization at once yields one membership", async () => {
    const { organizationId, owner } = await createOrganization(identity.clients);
    const email = uniqueEmail("race-member");
    const results = await Promise.allSettled(
      [0, 1, 2].map(() => identity.client.members.addMember({ organizationId, email, role: MemberRole.MEMBER_ROLE_READ })),
    );
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toMatchObject({ code: "conflict" });
    }
    expect(results.some((result) => result.status === "fulfilled")).toBe(true);
    const members = await identity.client.members.listMembers({
      caller: owner.caller,
      organizationId,
      page: undefined,
      order: 0,
      role: MemberRole.MEMBER_ROLE_READ,
      search: "",
      sort: 0,
    });
    expect(members.members.map((member) => member.user!.email)).toEqual([email]);
  });
});
