import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  other = await createOrganization(stack);
});
afterAll(() => stack?.stop());

/** A JWT's payload, read without checking it (the service checks it). */
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
const ping = (organization: TestOrganization, token = organization.owner.token) =>
  call(stack, "POST", `/v1/orgs/${organization.organizationId}/ping`, { token });

describe("member visitor claims on the organization ping", () => {
  it("answers none until the organization has a site, then a one-hour JWT of the member under both names", async () => {
    expect((await ping(org)).body).toEqual({});
    await org.owner.api.orgs.createSite(org.organizationId, { title: "Handbook" });
    const answer = (await org.owner.api.orgs.updateOrganizationMemberLastSeenAt(org.organizationId)).data as {
      gitbookVisitorClaims?: string;
      serviceVisitorClaims?: string;
    };
    expect(answer.gitbookVisitorClaims).toEqual(expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/));
    expect(answer.serviceVisitorClaims).toBe(answer.gitbookVisitorClaims);
    const claims = payloadOf(answer.gitbookVisitorClaims!);
    expect(claims).toMatchObject({
      sub: org.owner.userId,
      email: org.owner.email,
      role: "admin",
      teams: [],
      iss: "imprint",
      aud: `imprint:organization:${org.organizationId}`,
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);

    // The reader's check: valid for this organization only, and not once tampered with.
    const verify = (organizationId: string, token: string) => stack.clients.publishing.memberVisitorTokens.verifyMemberVisitorToken({ organizationId, token });
    expect(await verify(org.organizationId, answer.gitbookVisitorClaims!)).toMatchObject({
      valid: true,
      userId: org.owner.userId,
      email: org.owner.email,
      role: "admin",
    });
    expect((await verify(other.organizationId, answer.gitbookVisitorClaims!)).valid).toBe(false);
    const [header, , signature] = answer.gitbookVisitorClaims!.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: "read", sub: "someone-else" })).toString("base64url")}.${signature}`;
    expect((await verify(org.organizationId, forged)).valid).toBe(false);
    expect((await verify(org.organizationId, "not a token")).valid).toBe(false);
  });

  it("gives each member their own role, and guests none", async () => {
    await org.owner.api.orgs.createSite(org.organizationId, { title: "Roles" });
    const reader = await createMember(stack, org, { role: "read" });
    const guest = await createMember(stack, org, { role: "guest" });
    const readerAnswer = (await ping(org, reader.token)).body as { serviceVisitorClaims: string };
    expect(payloadOf(readerAnswer.serviceVisitorClaims)).toMatchObject({ sub: reader.userId, role: "read" });
    const guestAnswer = await ping(org, guest.token);
    expect(guestAnswer.status).toBe(200);
    expect(guestAnswer.body).toEqual({});
    expect((await ping(org, other.owner.token)).status).toBe(404);
  });

  it("refuses an expired token", async () => {
    await org.owner.api.orgs.createSite(org.organizationId, { title: "Expiry" });
    const token = ((await ping(org)).body as { serviceVisitorClaims: string }).serviceVisitorClaims;
    expect((await stack.clients.publishing.memberVisitorTokens.verifyMemberVisitorToken({ organizationId: org.organizationId, token })).valid).toBe(true);
    stack.clock.advance(60 * 60 * 1000 + 1000);
    expect((await stack.clients.publishing.memberVisitorTokens.verifyMemberVisitorToken({ organizationId: org.organizationId, token })).valid).toBe(false);
  });
});
