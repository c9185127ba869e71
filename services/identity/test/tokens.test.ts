import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { IssueInstallationTokenRequest } from "@imprint/proto/identity/v1/tokens";
import { AppError, forkEm } from "@imprint/runtime";
import { ApiToken } from "../src/domain/api-token.js";
import { hashTokenSecret } from "../src/domain/tokens.js";
import { createOrganization, uniqueEmail } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

describe("API tokens", () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.stop());

  const readToken = (tokenId: string) => forkEm(identity.running.orm).findOneOrFail(ApiToken, tokenId);

  it("issues a random imp_ secret, stores only its hash and authenticates it", async () => {
    const email = uniqueEmail();
    await identity.client.users.createUser({ email, displayName: "Tina Token" });
    const issued = await identity.client.tokens.issueToken({ email, label: "ci" });
    expect(issued.token).toMatch(/^imp_[0-9A-Za-z]{43}$/);

    const stored = await readToken(issued.tokenId);
    expect(stored.tokenHash).toBe(hashTokenSecret(issued.token));
    expect(stored.tokenHash).not.toContain(issued.token.slice(4));
    expect(stored.lastFour).toBe(issued.token.slice(-4));
    expect(stored.label).toBe("ci");

    const principal = await identity.client.tokens.authenticateToken({ token: issued.token });
    expect(principal.caller).toEqual({ userId: principal.user!.id, tokenId: issued.tokenId });
    expect(principal.user).toMatchObject({ email, displayName: "Tina Token", photoUrl: "" });
    // An API token does not expire.
    expect(principal.expiresAt).toBeUndefined();
  });

  it("gives every issue a different secret", async () => {
    const email = uniqueEmail();
    await identity.client.users.createUser({ email, displayName: "" });
    const first = await identity.client.tokens.issueToken({ email, label: "" });
    const second = await identity.client.tokens.issueToken({ email, label: "" });
    expect(first.token).not.toBe(second.token);
    expect(first.tokenId).not.toBe(second.tokenId);
  });

  it("rejects unknown, malformed and empty tokens as unauthenticated", async () => {
    for (const token of ["imp_doesnotexist0000000000000000000000000000", "not-a-token", ""]) {
      await expect(identity.client.tokens.authenticateToken({ token })).rejects.toMatchObject({ code: "unauthenticated" });
    }
  });

  it("revokes by secret: the token stops authenticating, and revoking again keeps the first time", async () => {
    const { owner } = await createOrganization(identity.clients);
    await identity.client.tokens.authenticateToken({ token: owner.token });
    const revoked = await identity.client.tokens.revokeToken({ token: owner.token, tokenId: "" });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    await expect(identity.client.tokens.authenticateToken({ token: owner.token })).rejects.toMatchObject({ code: "unauthenticated" });

    const again = await identity.client.tokens.revokeToken({ token: "", tokenId: revoked.tokenId });
    expect(again).toEqual(revoked);
  });

  it("revokes by identifier", async () => {
    const email = uniqueEmail();
    await identity.client.users.createUser({ email, displayName: "" });
    const issued = await identity.client.tokens.issueToken({ email, label: "" });
    const revoked = await identity.client.tokens.revokeToken({ token: "", tokenId: issued.tokenId });
    expect(revoked.tokenId).toBe(issued.tokenId);
    await expect(identity.client.tokens.authenticateToken({ token: issued.token })).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("fails to revoke unknown tokens and requires exactly one of secret and id", async () => {
    await expect(identity.client.tokens.revokeToken({ token: "imp_unknown000000000000", tokenId: "" })).rejects.toMatchObject({
      code: "not_found",
      message: "Token not found",
    });
    await expect(identity.client.tokens.revokeToken({ token: "", tokenId: "3b241101-e2bb-4255-8caf-4136c566a962" })).rejects.toMatchObject({
      code: "not_found",
    });
    const neither = await identity.client.tokens.revokeToken({ token: "", tokenId: "" }).catch((error: unknown) => error);
    expect(neither).toBeInstanceOf(AppError);
    expect(neither).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^token: /) });
  });

  it("fails to issue a token to an unknown user, and validates the e-mail", async () => {
    await expect(identity.client.tokens.issueToken({ email: uniqueEmail("nobody"), label: "" })).rejects.toMatchObject({
      code: "not_found",
      message: "User not found",
    });
    await expect(identity.client.tokens.issueToken({ email: "not-an-email", label: "" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "email: must be a valid e-mail address",
    });
  });

  it("writes lastUsedAt on first use, then at most once a minute", async () => {
    const { owner } = await createOrganization(identity.clients);
    const tokenId = (await identity.client.tokens.authenticateToken({ token: owner.token })).caller!.tokenId;
    const first = (await readToken(tokenId)).lastUsedAt;
    expect(first).toBeInstanceOf(Date);

    identity.clock.advance(30_000);
    await identity.client.tokens.authenticateToken({ token: owner.token });
    expect((await readToken(tokenId)).lastUsedAt).toEqual(first);

    identity.clock.advance(31_000);
    await identity.client.tokens.authenticateToken({ token: owner.token });
    const later = (await readToken(tokenId)).lastUsedAt;
    expect(later!.getTime()).toBeGreaterThanOrEqual(first!.getTime() + 60_000);
  });

  describe("caller tokens (IssueCallerToken)", () => {
    const callerOf = async (token: string) => (await identity.client.tokens.authenticateToken({ token })).caller!;

    it("issues a labelled token of the caller's own user that expires after its lifetime", async () => {
      const { owner } = await createOrganization(identity.clients);
      const caller = await callerOf(owner.token);
      const issued = await identity.client.tokens.issueCallerToken({ caller, label: "Published content API token", ttlSeconds: 3600 });
      expect(issued.token).toMatch(/^imp_/);
      const stored = await readToken(issued.tokenId);
      // The service's clock issued it: an hour after its creation.
      expect(issued.expiresAt!.getTime() - stored.createdAt.getTime()).toBeGreaterThan(3_599_000);
      expect(issued.expiresAt!.getTime() - stored.createdAt.getTime()).toBeLessThanOrEqual(3_600_000);
      const principal = await identity.client.tokens.authenticateToken({ token: issued.token });
      expect(principal.caller).toEqual({ userId: caller.userId, tokenId: issued.tokenId });
      expect(principal.expiresAt).toEqual(issued.expiresAt);
      expect(stored.label).toBe("Published content API token");
    });

    it("never outlives the caller's own token", async () => {
      const { organizationId } = await createOrganization(identity.clients);
      const installation = await identity.client.tokens.issueInstallationToken(
        IssueInstallationTokenRequest.fromPartial({
          organizationId,
          installationId: `inst_${randomUUID()}`,
          integrationName: "slack",
          integrationTitle: "Slack",
          role: MemberRole.MEMBER_ROLE_READ,
          ttlSeconds: 60,
        }),
      );
      const issued = await identity.client.tokens.issueCallerToken({ caller: await callerOf(installation.token), label: "short", ttlSeconds: 3600 });
      expect(issued.expiresAt).toEqual(installation.expiresAt);
    });

    it("refuses a revoked or missing caller token (unauthenticated) and a bad label or lifetime (invalid_argument naming it)", async () => {
      const { owner } = await createOrganization(identity.clients);
      const caller = await callerOf(owner.token);
      for (const [request, message] of [
        [{ caller, label: "", ttlSeconds: 60 }, "label:"],
        [{ caller, label: "x".repeat(256), ttlSeconds: 60 }, "label:"],
        [{ caller, label: "x", ttlSeconds: 0 }, "ttl_seconds:"],
        [{ caller, label: "x", ttlSeconds: 86_401 }, "ttl_seconds:"],
      ] as const) {
        await expect(identity.client.tokens.issueCallerToken(request)).rejects.toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining(message),
        });
      }
      await expect(
        identity.client.tokens.issueCallerToken({ caller: { userId: caller.userId, tokenId: "" }, label: "x", ttlSeconds: 60 }),
      ).rejects.toMatchObject({
        code: "unauthenticated",
      });
      await identity.client.tokens.revokeToken({ token: owner.token, tokenId: "" });
      await expect(identity.client.tokens.issueCallerToken({ caller, label: "x", ttlSeconds: 60 })).rejects.toMatchObject({ code: "unauthenticated" });
    });
  });
});
