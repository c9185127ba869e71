import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SortOrder } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { MemberSort, type ListMembersRequest } from "@imprint/proto/identity/v1/members";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
import { IssueInstallationTokenRequest } from "@imprint/proto/identity/v1/tokens";
import { createMember, createOrganization, eventually, failure, readEvents, waitForEvents, type TestOwner } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("installation tokens", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    // The expired tokens' sweep runs often here, so its test need not wait an hour.
    identity = await startTestIdentity({ extraEnv: { TOKEN_SWEEP_INTERVAL_MS: "200" } });
  });
  afterAll(() => identity.stop());

  let organizationId: string;
  let owner: TestOwner;
  beforeEach(async () => {
    ({ organizationId, owner } = await createOrganization(identity.clients));
  });

  const issue = (fields: Partial<IssueInstallationTokenRequest> = {}) =>
    identity.client.tokens.issueInstallationToken(
      IssueInstallationTokenRequest.fromPartial({
        organizationId,
        installationId: `inst_${randomUUID()}`,
        integrationName: "slack",
        integrationTitle: "Slack",
        role: MemberRole.MEMBER_ROLE_EDIT,
        ttlSeconds: 0,
        ...fields,
      }),
    );
  const membership = (userId: string, tokenId = "") => identity.client.members.getMembership({ organizationId, userId, tokenId });
  const listMembers = (fields: Partial<ListMembersRequest> = {}) =>
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

  it("issues a token of the installation's principal that authenticates and acts with the role", async () => {
    const before = Date.now();
    const issued = await issue({ integrationTitle: "  Slack for Teams ", ttlSeconds: 600 });
    expect(issued.token).toMatch(/^imp_[0-9A-Za-z]{43}$/);
    expect(issued.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 600_000);
    expect(issued.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 600_000);

    const principal = await identity.client.tokens.authenticateToken({ token: issued.token });
    expect(principal.caller).toEqual({ userId: issued.userId, tokenId: issued.tokenId });
    // Callers that keep the answer (the gateway's token cache) never use it past the token's expiry.
    expect(principal.expiresAt).toEqual(issued.expiresAt);
    expect(principal.user).toEqual({
      id: issued.userId,
      displayName: "Slack for Teams",
      email: `${issued.userId}@installations.imprint.invalid`,
      photoUrl: "",
    });
    expect(await membership(issued.userId, issued.tokenId)).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT, disabled: false });
    // The principal may call the API like a member of its role.
    expect((await listMembers({ caller: principal.caller! })).members.map((member) => member.user!.id)).toEqual([owner.userId]);
  });

  it("answers a one-hour token by default", async () => {
    const before = Date.now();
    const issued = await issue({ ttlSeconds: 0 });
    expect(issued.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(issued.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it("leaves the principal out of member lists, counts and lookups, and out of reach of member management", async () => {
    const reader = await createMember(identity.clients, organizationId, { role: "read" });
    const { userId } = await issue({ role: MemberRole.MEMBER_ROLE_ADMIN });

    const listed = await listMembers();
    expect(listed.members.map((member) => member.user!.id).sort()).toEqual([owner.userId, reader.userId].sort());
    expect(listed.page!.totalCount).toBe(2);
    expect((await listMembers({ search: "installations.imprint" })).page!.totalCount).toBe(0);
    expect((await listMembers({ role: MemberRole.MEMBER_ROLE_ADMIN })).page!.totalCount).toBe(1);
    expect((await listMembers({ sort: MemberSort.MEMBER_SORT_NAME })).members).toHaveLength(2);
    expect(
      (await identity.client.members.batchGetMembers({ organizationId, userIds: [userId, reader.userId] })).members.map((member) => member.user!.id),
    ).toEqual([reader.userId]);

    const caller = owner.caller;
    // One call at a time: a call started early would reject with nobody awaiting it yet.
    for (const call of [
      () => identity.client.members.getMember({ caller, organizationId, userId }),
      () => identity.client.members.updateMember({ updateMask: ["role"], caller, organizationId, userId, role: MemberRole.MEMBER_ROLE_READ }),
      () => identity.client.members.removeMember({ caller, organizationId, userId }),
      () => identity.client.members.setMemberSso({ caller, organizationId, userId }),
    ]) {
      expect(await failure(call())).toMatchObject({ code: "not_found", message: "Member not found" });
    }
    // Nor can it remove itself.
    expect(await failure(identity.client.members.removeMember({ caller: { userId, tokenId: "" }, organizationId, userId }))).toMatchObject({
      code: "not_found",
    });
    expect(await failure(identity.client.teams.createTeam({ caller, organizationId, title: "Bots", memberUserIds: [userId] }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^members\[0\]: /),
    });

    // Its admin role makes no admin of the organization: the owner is still its last admin.
    expect(
      await failure(
        identity.client.members.updateMember({ updateMask: ["role"], caller, organizationId, userId: owner.userId, role: MemberRole.MEMBER_ROLE_READ }),
      ),
    ).toMatchObject({
      code: "failed_precondition",
    });
    expect(await membership(userId)).toEqual({ role: MemberRole.MEMBER_ROLE_ADMIN, disabled: false });
  });

  it("keeps the principal out of every route by which a person gets a user, a membership or a token", async () => {
    const { userId } = await issue();
    const email = `${userId}@installations.imprint.invalid`;
    // One call at a time: a call started early would reject with nobody awaiting it yet.
    for (const [call, field] of [
      [() => identity.client.tokens.issueToken({ email, label: "" }), "email"],
      [() => identity.client.members.addMember({ organizationId, email, role: MemberRole.MEMBER_ROLE_ADMIN }), "email"],
      [() => identity.client.users.createUser({ email, displayName: "" }), "email"],
      [() => identity.client.organizations.createOrganization({ title: "Taken over", ownerEmail: email, ownerDisplayName: "", ownerToken: "" }), "owner_email"],
    ] as const) {
      expect(await failure(call())).toMatchObject({
        code: "invalid_argument",
        message: `${field}: the domain installations.imprint.invalid is reserved for integration installations`,
      });
    }
  });

  it("reuses the installation's principal and gives it the role and title of each issue", async () => {
    const since = new Date(Date.now() - 1_000);
    const installationId = `inst_${randomUUID()}`;
    const first = await issue({ installationId, role: MemberRole.MEMBER_ROLE_READ });
    const second = await issue({ installationId, role: MemberRole.MEMBER_ROLE_CREATE, integrationTitle: "Slack (new)" });
    expect(second.userId).toBe(first.userId);
    expect(second.tokenId).not.toBe(first.tokenId);

    // Both tokens act, with the role of the latest issue.
    for (const issued of [first, second]) {
      const principal = await identity.client.tokens.authenticateToken({ token: issued.token });
      expect(principal.user!.displayName).toBe("Slack (new)");
      expect(await membership(first.userId, issued.tokenId)).toEqual({ role: MemberRole.MEMBER_ROLE_CREATE, disabled: false });
    }
    const events = await waitForEvents(
      "identity",
      { since, organizationId, payload: { userId: first.userId } },
      { types: ["member.added", "member.role_changed"] },
    );
    expect(events.filter((event) => event.type.startsWith("member."))).toMatchObject([
      { type: "member.added", actor: null, payload: { userId: first.userId, role: "read" } },
      { type: "member.role_changed", actor: null, payload: { userId: first.userId, from: "read", to: "create" } },
    ]);

    // Its profile is its integration's: it cannot rename itself.
    const principalCaller = { userId: first.userId, tokenId: second.tokenId };
    expect(
      await failure(
        identity.client.users.updateUser({
          caller: principalCaller,
          userId: first.userId,
          updateMask: ["display_name"],
          displayName: "Your bank",
          photoUrl: "",
        }),
      ),
    ).toMatchObject({
      code: "permission_denied",
    });
    expect((await identity.client.tokens.authenticateToken({ token: second.token })).user!.displayName).toBe("Slack (new)");

    // The same role again changes nothing.
    await issue({ installationId, role: MemberRole.MEMBER_ROLE_CREATE, integrationTitle: "Slack (new)" });
    const after = await readEvents("identity", { since, organizationId, payload: { userId: first.userId } });
    expect(after.filter((event) => event.type === "member.role_changed")).toHaveLength(1);
  });

  it("refuses an installation's token once it expired", async () => {
    const issued = await issue({ ttlSeconds: 60 });
    await identity.client.tokens.authenticateToken({ token: issued.token });
    identity.clock.advance(61_000);
    expect(await failure(identity.client.tokens.authenticateToken({ token: issued.token }))).toMatchObject({ code: "unauthenticated" });
  });

  it("revokes an installation's tokens and removes its principal from the organization, idempotently", async () => {
    const since = new Date(Date.now() - 1_000);
    const installationId = `inst_${randomUUID()}`;
    const first = await issue({ installationId });
    const second = await issue({ installationId });
    const expired = await issue({ installationId, ttlSeconds: 1 });
    identity.clock.advance(2_000);

    expect(await identity.client.tokens.revokeInstallationTokens({ installationId })).toEqual({ revokedTokens: 2, memberRemoved: true });
    for (const issued of [first, second, expired]) {
      expect(await failure(identity.client.tokens.authenticateToken({ token: issued.token }))).toMatchObject({ code: "unauthenticated" });
    }
    expect(await failure(membership(first.userId))).toMatchObject({ code: "not_found" });

    const events = await waitForEvents(
      "identity",
      { since, payload: { userId: first.userId } },
      { types: ["token.revoked", "token.revoked", "member.removed"] },
    );
    expect(events.filter((event) => event.type === "member.removed")).toMatchObject([
      { organizationId, actor: null, payload: { userId: first.userId, role: "edit" } },
    ]);
    expect(
      events
        .filter((event) => event.type === "token.revoked")
        .map((event) => event.payload.tokenId)
        .sort(),
    ).toEqual([first.tokenId, second.tokenId].sort());

    expect(await identity.client.tokens.revokeInstallationTokens({ installationId })).toEqual({ revokedTokens: 0, memberRemoved: false });
    expect(await identity.client.tokens.revokeInstallationTokens({ installationId: `inst_${randomUUID()}` })).toEqual({
      revokedTokens: 0,
      memberRemoved: false,
    });
  });

  it("is accepted by an organization that requires SSO, where a person's ordinary token is not", async () => {
    const reader = await createMember(identity.clients, organizationId, { role: "read", token: true });
    const readerToken = await identity.client.tokens.authenticateToken({ token: reader.token! });
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: owner.caller, organizationId, updateMask: ["sso"], sso: true }),
    );

    const issued = await issue({ role: MemberRole.MEMBER_ROLE_READ });
    const principal = await identity.client.tokens.authenticateToken({ token: issued.token });
    expect(await membership(issued.userId, issued.tokenId)).toEqual({ role: MemberRole.MEMBER_ROLE_READ, disabled: false });
    expect((await listMembers({ caller: principal.caller! })).page!.totalCount).toBe(2);
    expect(await failure(membership(reader.userId, readerToken.caller!.tokenId))).toMatchObject({ code: "not_found" });
  });

  it("refuses a malformed request naming the field", async () => {
    const cases: [Partial<IssueInstallationTokenRequest>, string][] = [
      [{ organizationId: "not-a-uuid" }, "organization_id"],
      [{ installationId: "" }, "installation_id"],
      [{ installationId: "has spaces" }, "installation_id"],
      [{ installationId: "x".repeat(129) }, "installation_id"],
      [{ integrationName: " " }, "integration_name"],
      [{ integrationTitle: "" }, "integration_title"],
      [{ integrationTitle: "t".repeat(256) }, "integration_title"],
      [{ role: MemberRole.MEMBER_ROLE_UNSPECIFIED }, "role"],
      [{ ttlSeconds: -1 }, "ttl_seconds"],
      [{ ttlSeconds: 86_401 }, "ttl_seconds"],
    ];
    for (const [fields, field] of cases) {
      expect(await failure(issue(fields))).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(new RegExp(`^${field}: `)) });
    }
    expect(await failure(identity.client.tokens.revokeInstallationTokens({ installationId: "" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^installation_id: /),
    });
  });

  it("answers NOT_FOUND for an unknown organization", async () => {
    expect(await failure(issue({ organizationId: randomUUID() }))).toMatchObject({ code: "not_found", message: "Organization not found" });
  });

  it("keeps an installation in its one organization", async () => {
    const installationId = `inst_${randomUUID()}`;
    await issue({ installationId });
    const other = await createOrganization(identity.clients);
    expect(await failure(issue({ installationId, organizationId: other.organizationId }))).toMatchObject({
      code: "failed_precondition",
      message: expect.stringMatching(/^installation_id: /),
    });
  });

  // Last: it moves the clock a day on.
  it("deletes tokens a day after they expired, and keeps the others", async () => {
    const tokenCount = async (id: string) =>
      Number(
        (await identity.running.orm.em.fork().getConnection().execute<{ count: string }[]>("select count(*) as count from api_tokens where id = ?", [id]))[0]!
          .count,
      );
    const expiring = await issue({ ttlSeconds: 60 });
    const lasting = await issue({ ttlSeconds: 86_400 });
    identity.clock.advance(61_000);
    // Expired, refused, but kept for a day.
    expect(await failure(identity.client.tokens.authenticateToken({ token: expiring.token }))).toMatchObject({ code: "unauthenticated" });
    expect(await tokenCount(expiring.tokenId)).toBe(1);

    identity.clock.advance(86_400_000);
    await eventually(async () => (await tokenCount(expiring.tokenId)) === 0, 20_000);
    // The day-long token expired a minute ago: kept for now.
    expect(await tokenCount(lasting.tokenId)).toBe(1);
    // A person's token without an expiry stays.
    expect((await identity.client.tokens.authenticateToken({ token: owner.token })).user!.id).toBe(owner.userId);
  });
});
