import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SortOrder } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { MemberSort, type ListMembersRequest } from "@imprint/proto/identity/v1/members";
import { createMember, createOrganization, createOutsider, type TestUser, type TestOwner } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("members", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  let organizationId: string;
  let owner: TestOwner;
  beforeEach(async () => {
    ({ organizationId, owner } = await createOrganization(identity.clients, { ownerDisplayName: "Olivia Owner" }));
  });

  const list = (fields: Partial<ListMembersRequest> = {}) =>
    identity.client.members.listMembers({
      caller: owner.caller,
      organizationId,
      page: undefined,
      order: SortOrder.SORT_ORDER_UNSPECIFIED,
      role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      search: "",
      sort: MemberSort.MEMBER_SORT_UNSPECIFIED,
      ...fields,
    });
  const names = (response: Awaited<ReturnType<typeof list>>) => response.members.map((member) => member.user!.displayName);

  /** Three members who joined one second apart after the owner: Bob, alice (lower-case), Carol 100%_. */
  async function addThree(): Promise<{ bob: TestUser; alice: TestUser; carol: TestUser }> {
    identity.clock.advance(1_000);
    const bob = await createMember(identity.clients, organizationId, { displayName: "Bob Builder", role: MemberRole.MEMBER_ROLE_EDIT });
    identity.clock.advance(1_000);
    const alice = await createMember(identity.clients, organizationId, { displayName: "alice Anders", role: MemberRole.MEMBER_ROLE_GUEST });
    identity.clock.advance(1_000);
    const carol = await createMember(identity.clients, organizationId, { displayName: "Carol 100%_", role: MemberRole.MEMBER_ROLE_EDIT });
    return { bob, alice, carol };
  }

  it("lists members by join date, newest first by default, with zero counts", async () => {
    await addThree();
    const response = await list();
    expect(names(response)).toEqual(["Carol 100%_", "alice Anders", "Bob Builder", "Olivia Owner"]);
    expect(response.page).toEqual({ nextPageToken: "", totalCount: 4 });
    expect(response.members[3]).toMatchObject({ role: MemberRole.MEMBER_ROLE_ADMIN, disabled: false, sso: false, spaces: 0, teams: 0, sites: 0 });
    expect(response.members[3]!.lastSeenAt).toBeUndefined();
    expect(names(await list({ order: SortOrder.SORT_ORDER_ASC }))).toEqual(["Olivia Owner", "Bob Builder", "alice Anders", "Carol 100%_"]);
  });

  it("sorts by name case-insensitively in both directions", async () => {
    await addThree();
    expect(names(await list({ sort: MemberSort.MEMBER_SORT_NAME, order: SortOrder.SORT_ORDER_ASC }))).toEqual([
      "alice Anders",
      "Bob Builder",
      "Carol 100%_",
      "Olivia Owner",
    ]);
    expect(names(await list({ sort: MemberSort.MEMBER_SORT_NAME }))).toEqual(["Olivia Owner", "Carol 100%_", "Bob Builder", "alice Anders"]);
  });

  it("sorting by last activity lists only members who were active", async () => {
    const { bob, carol } = await addThree();
    await identity.client.members.pingMember({ caller: carol.caller, organizationId });
    identity.clock.advance(1_000);
    await identity.client.members.pingMember({ caller: bob.caller, organizationId });
    const response = await list({ sort: MemberSort.MEMBER_SORT_LAST_SEEN_AT });
    expect(names(response)).toEqual(["Bob Builder", "Carol 100%_"]);
    expect(response.page!.totalCount).toBe(2);
    expect(names(await list({ sort: MemberSort.MEMBER_SORT_LAST_SEEN_AT, order: SortOrder.SORT_ORDER_ASC }))).toEqual(["Carol 100%_", "Bob Builder"]);
  });

  it("filters by role, guests included", async () => {
    await addThree();
    expect(names(await list({ role: MemberRole.MEMBER_ROLE_EDIT }))).toEqual(["Carol 100%_", "Bob Builder"]);
    expect(names(await list({ role: MemberRole.MEMBER_ROLE_GUEST }))).toEqual(["alice Anders"]);
    expect(names(await list({ role: MemberRole.MEMBER_ROLE_ADMIN }))).toEqual(["Olivia Owner"]);
    expect((await list({ role: MemberRole.MEMBER_ROLE_REVIEW })).page!.totalCount).toBe(0);
  });

  it("searches display names and e-mails case-insensitively, with % and _ taken literally", async () => {
    const { bob } = await addThree();
    expect(names(await list({ search: "ALICE" }))).toEqual(["alice Anders"]);
    expect(names(await list({ search: bob.email.slice(0, 12).toUpperCase() }))).toEqual(["Bob Builder"]);
    expect(names(await list({ search: "100%_" }))).toEqual(["Carol 100%_"]);
    expect(names(await list({ search: "%" }))).toEqual(["Carol 100%_"]);
    expect(names(await list({ search: "_" }))).toEqual(["Carol 100%_"]);
    expect((await list({ search: "zzz" })).members).toEqual([]);
  });

  it("pages with next tokens that keep the sort", async () => {
    await addThree();
    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const response = await list({ sort: MemberSort.MEMBER_SORT_NAME, order: SortOrder.SORT_ORDER_ASC, page: { pageToken, pageSize: 3 } });
      expect(response.page!.totalCount).toBe(4);
      seen.push(...names(response));
      pageToken = response.page!.nextPageToken;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(2);
    expect(seen).toEqual(["alice Anders", "Bob Builder", "Carol 100%_", "Olivia Owner"]);

    const first = await list({ page: { pageToken: "", pageSize: 1 } });
    // A token is bound to its sort: replaying it with another sort is a caller error.
    await expect(list({ sort: MemberSort.MEMBER_SORT_NAME, page: { pageToken: first.page!.nextPageToken, pageSize: 1 } })).rejects.toMatchObject({
      code: "invalid_argument",
    });
    await expect(list({ page: { pageToken: "garbage", pageSize: 1 } })).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("pages one member at a time through the date sorts in both directions, as the whole list orders them", async () => {
    await addThree();
    const pagedNames = async (request: Partial<ListMembersRequest>) => {
      const seen: string[] = [];
      let pageToken = "";
      do {
        const response = await list({ ...request, page: { pageToken, pageSize: 1 } });
        seen.push(...names(response));
        pageToken = response.page!.nextPageToken;
      } while (pageToken && seen.length < 10);
      return seen;
    };
    for (const order of [SortOrder.SORT_ORDER_DESC, SortOrder.SORT_ORDER_ASC]) {
      const whole = names(await list({ order }));
      expect(whole).toHaveLength(4);
      expect(await pagedNames({ order })).toEqual(whole);
    }
  });

  it("refuses edited tokens before they reach the query: operators, ill-typed values", async () => {
    await addThree();
    const forge = (values: string) => Buffer.from(`{"s":"joinedAt,id:desc","v":${values}}`).toString("base64url");
    const date = new Date().toISOString();
    for (const values of [
      // Read as MikroORM operators, these would widen the page to rows the keyset excludes.
      `[{"$gt":"1970-01-01T00:00:00.000Z"},{"$ne":null}]`,
      `["${date}",{"$in":["00000000-0000-4000-8000-000000000000"]}]`,
      `[{"$re":".*"},"00000000-0000-4000-8000-000000000000"]`,
      // PostgreSQL would fail on these (a 500 before).
      `[true,"00000000-0000-4000-8000-000000000000"]`,
      `[1e309,"00000000-0000-4000-8000-000000000000"]`,
      `["${date}","not a uuid"]`,
    ]) {
      await expect(list({ page: { pageToken: forge(values), pageSize: 1 } })).rejects.toMatchObject({
        code: "invalid_argument",
        message: "page: not a valid page token for this list",
      });
    }
  });

  it("rejects bad list parameters and non-members", async () => {
    await expect(list({ search: "x".repeat(256) })).rejects.toMatchObject({ code: "invalid_argument", message: "search: must be at most 255 characters" });
    await expect(list({ sort: 42 as MemberSort })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^sort: /) });
    await expect(list({ order: 9 as SortOrder })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^order: /) });
    await expect(list({ role: 99 as MemberRole })).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^role: /) });
    const outsider = await createOutsider(identity.clients);
    await expect(list({ caller: outsider.caller })).rejects.toMatchObject({ code: "not_found", message: "Organization not found" });
  });

  it("gets one member, for members only", async () => {
    const { bob } = await addThree();
    const { member } = await identity.client.members.getMember({ caller: bob.caller, organizationId, userId: owner.userId });
    expect(member).toMatchObject({ user: { id: owner.userId, email: owner.email, displayName: "Olivia Owner" }, role: MemberRole.MEMBER_ROLE_ADMIN });
    const outsider = await createOutsider(identity.clients);
    await expect(identity.client.members.getMember({ caller: owner.caller, organizationId, userId: outsider.userId })).rejects.toMatchObject({
      code: "not_found",
      message: "Member not found",
    });
    await expect(identity.client.members.getMember({ caller: outsider.caller, organizationId, userId: owner.userId })).rejects.toMatchObject({
      code: "not_found",
      message: "Organization not found",
    });
  });

  it("shows a guest only themself: listing is permission_denied, any other member not_found like a missing one", async () => {
    const { alice: guest, bob } = await addThree();
    await expect(list({ caller: guest.caller })).rejects.toMatchObject({ code: "permission_denied", message: "Guests cannot list the organization's members" });
    const { member: self } = await identity.client.members.getMember({ caller: guest.caller, organizationId, userId: guest.userId });
    expect(self).toMatchObject({ user: { id: guest.userId, email: guest.email }, role: MemberRole.MEMBER_ROLE_GUEST });
    for (const userId of [owner.userId, bob.userId, randomUUID()]) {
      await expect(identity.client.members.getMember({ caller: guest.caller, organizationId, userId })).rejects.toMatchObject({
        code: "not_found",
        message: "Member not found",
      });
    }
  });

  it("changes roles (admins only) and reports the membership to other services", async () => {
    const { bob, alice } = await addThree();
    const { member } = await identity.client.members.updateMember({
      updateMask: ["role"],
      caller: owner.caller,
      organizationId,
      userId: bob.userId,
      role: MemberRole.MEMBER_ROLE_REVIEW,
    });
    expect(member!.role).toBe(MemberRole.MEMBER_ROLE_REVIEW);
    expect(await identity.client.members.getMembership({ organizationId, userId: bob.userId, tokenId: "" })).toEqual({
      role: MemberRole.MEMBER_ROLE_REVIEW,
      disabled: false,
    });
    expect(await identity.client.members.getMembership({ organizationId, userId: alice.userId, tokenId: "" })).toEqual({
      role: MemberRole.MEMBER_ROLE_GUEST,
      disabled: false,
    });

    await expect(
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: bob.caller,
        organizationId,
        userId: alice.userId,
        role: MemberRole.MEMBER_ROLE_ADMIN,
      }),
    ).rejects.toMatchObject({
      code: "permission_denied",
    });
    await expect(
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: owner.caller,
        organizationId,
        userId: alice.userId,
        role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^role: must be a role/),
    });
    const outsider = await createOutsider(identity.clients);
    await expect(
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: owner.caller,
        organizationId,
        userId: outsider.userId,
        role: MemberRole.MEMBER_ROLE_READ,
      }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(identity.client.members.getMembership({ organizationId, userId: outsider.userId, tokenId: "" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("never demotes or removes the last admin", async () => {
    await expect(
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: owner.caller,
        organizationId,
        userId: owner.userId,
        role: MemberRole.MEMBER_ROLE_READ,
      }),
    ).rejects.toMatchObject({
      code: "failed_precondition",
      message: expect.stringContaining("last admin"),
    });
    await expect(identity.client.members.removeMember({ caller: owner.caller, organizationId, userId: owner.userId })).rejects.toMatchObject({
      code: "failed_precondition",
      message: expect.stringContaining("last admin"),
    });
    await expect(identity.client.members.addMember({ organizationId, email: owner.email, role: MemberRole.MEMBER_ROLE_READ })).rejects.toMatchObject({
      code: "failed_precondition",
    });

    // With a second admin, the first may step down.
    const second = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_ADMIN });
    await identity.client.members.updateMember({
      updateMask: ["role"],
      caller: second.caller,
      organizationId,
      userId: owner.userId,
      role: MemberRole.MEMBER_ROLE_READ,
    });
    await expect(identity.client.members.removeMember({ caller: second.caller, organizationId, userId: second.userId })).rejects.toMatchObject({
      code: "failed_precondition",
    });
  });

  it("keeps an admin when two admins demote each other at the same time", async () => {
    const second = await createMember(identity.clients, organizationId, { role: MemberRole.MEMBER_ROLE_ADMIN });
    const results = await Promise.allSettled([
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: owner.caller,
        organizationId,
        userId: second.userId,
        role: MemberRole.MEMBER_ROLE_READ,
      }),
      identity.client.members.updateMember({
        updateMask: ["role"],
        caller: second.caller,
        organizationId,
        userId: owner.userId,
        role: MemberRole.MEMBER_ROLE_READ,
      }),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect((await list({ role: MemberRole.MEMBER_ROLE_ADMIN })).members).toHaveLength(1);
  });

  it("removes members: admins anyone, members themselves, others nobody", async () => {
    const { bob, alice, carol } = await addThree();
    await expect(identity.client.members.removeMember({ caller: bob.caller, organizationId, userId: alice.userId })).rejects.toMatchObject({
      code: "permission_denied",
    });
    expect(await identity.client.members.removeMember({ caller: bob.caller, organizationId, userId: bob.userId })).toEqual({ removed: true });
    expect(await identity.client.members.removeMember({ caller: owner.caller, organizationId, userId: alice.userId })).toEqual({ removed: true });
    expect(await identity.client.members.removeMember({ caller: owner.caller, organizationId, userId: alice.userId })).toEqual({ removed: false });
    expect(names(await list())).toEqual(["Carol 100%_", "Olivia Owner"]);
    // A removed member no longer sees the organization.
    await expect(identity.client.organizations.getOrganization({ caller: bob.caller, organizationId })).rejects.toMatchObject({ code: "not_found" });
    const outsider = await createOutsider(identity.clients);
    await expect(identity.client.members.removeMember({ caller: outsider.caller, organizationId, userId: carol.userId })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("records activity on ping", async () => {
    const before = identity.clock.now();
    const { member } = await identity.client.members.pingMember({ caller: owner.caller, organizationId });
    expect(member!.user!.id).toBe(owner.userId);
    expect(member!.lastSeenAt!.getTime()).toBeGreaterThanOrEqual(before.getTime());
    const { member: read } = await identity.client.members.getMember({ caller: owner.caller, organizationId, userId: owner.userId });
    expect(read!.lastSeenAt).toEqual(member!.lastSeenAt);
  });

  it("marks SSO members, admins only", async () => {
    const { bob, alice } = await addThree();
    await expect(identity.client.members.setMemberSso({ caller: bob.caller, organizationId, userId: alice.userId })).rejects.toMatchObject({
      code: "permission_denied",
    });
    const { member } = await identity.client.members.setMemberSso({ caller: owner.caller, organizationId, userId: alice.userId });
    expect(member).toMatchObject({ sso: true, user: { id: alice.userId } });
    expect((await identity.client.members.setMemberSso({ caller: owner.caller, organizationId, userId: alice.userId })).member!.sso).toBe(true);
    await expect(identity.client.members.setMemberSso({ caller: owner.caller, organizationId, userId: "nope" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("adds members by e-mail, creating unknown users, and updates an existing member's role", async () => {
    const email = `New.Person-${organizationId.slice(0, 6)}@Example.com`;
    const { member } = await identity.client.members.addMember({ organizationId, email, role: MemberRole.MEMBER_ROLE_COMMENT });
    expect(member).toMatchObject({
      role: MemberRole.MEMBER_ROLE_COMMENT,
      user: { email: email.toLowerCase(), displayName: email.split("@")[0]!.toLowerCase() },
    });
    const again = await identity.client.members.addMember({ organizationId, email: email.toUpperCase(), role: MemberRole.MEMBER_ROLE_CREATE });
    expect(again.member).toMatchObject({ role: MemberRole.MEMBER_ROLE_CREATE, user: { id: member!.user!.id } });
    expect((await list()).page!.totalCount).toBe(2);
    await expect(
      identity.client.members.addMember({ organizationId: "3b241101-e2bb-4255-8caf-4136c566a962", email, role: MemberRole.MEMBER_ROLE_READ }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("creates users once per e-mail, case-insensitively", async () => {
    const email = `Case-${organizationId.slice(0, 6)}@Example.com`;
    const created = await identity.client.users.createUser({ email, displayName: "Casey" });
    expect(created).toMatchObject({ created: true, user: { email: email.toLowerCase(), displayName: "Casey" } });
    const existing = await identity.client.users.createUser({ email: email.toUpperCase(), displayName: "Other" });
    expect(existing).toEqual({ created: false, user: created.user });
  });
});
