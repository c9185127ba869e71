import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { UpdateOrganizationRequest } from "@imprint/proto/identity/v1/organizations";
import { forkEm } from "@imprint/runtime";
import { createOrganization, eventually, failure, uniqueEmail } from "@imprint/runtime/testing";
import { Session } from "../src/domain/session.js";
import { UserPassword } from "../src/domain/password.js";
import { hashTokenSecret } from "../src/domain/tokens.js";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/**
 * Identity's side of password sign-in, over gRPC: what the gateway's end-to-end tests cannot
 * reach as directly (concurrent guesses, concurrent resets, a session's secret as a bearer token,
 * what is stored, the sweep). Sessions' use on /v1 routes: gateway/test/sign-in.e2e.test.ts.
 */
describe("passwords and sessions", () => {
  let identity: TestIdentity;
  const PASSWORD = "correct horse battery staple";
  beforeAll(async () => {
    identity = await startTestIdentity({ extraEnv: { TOKEN_SWEEP_INTERVAL_MS: "200", PASSWORD_LOCKOUT_FAILURES: "5" } });
  });
  afterAll(() => identity.stop());

  async function person(): Promise<{ email: string; userId: string }> {
    const email = uniqueEmail("person");
    const { user } = await identity.client.users.createUser({ email, displayName: "" });
    await identity.client.sessions.setPassword({ email, password: PASSWORD });
    return { email, userId: user!.id };
  }

  it("stores a salted scrypt hash with its parameters, and a session's secret only as its SHA-256", async () => {
    const first = await person();
    const second = await person();
    const em = forkEm(identity.running.orm);
    const [a, b] = await Promise.all([em.findOneOrFail(UserPassword, { user: first.userId }), em.fork().findOneOrFail(UserPassword, { user: second.userId })]);
    expect(a.hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a.hash).not.toContain(PASSWORD);
    // Same password, another salt: another hash.
    expect(a.hash.split("$")[4]).not.toBe(b.hash.split("$")[4]);

    const { started } = await identity.client.sessions.signInWithPassword({ email: first.email, password: PASSWORD });
    expect(started!.secret).toMatch(/^ims_[0-9A-Za-z]{43}$/);
    const stored = await em.fork().findOneOrFail(Session, started!.session!.id);
    expect(stored.secretHash).toBe(hashTokenSecret(started!.secret));
    expect(stored.method).toBe("password");
  });

  it("takes a session's secret only as a session, and a token only as a token", async () => {
    const member = await person();
    const { started } = await identity.client.sessions.signInWithPassword({ email: member.email, password: PASSWORD });
    const secret = started!.secret;
    const asSession = await identity.client.tokens.authenticateToken({ token: secret, session: true });
    expect(asSession.caller).toMatchObject({ userId: member.userId, tokenId: started!.session!.id });
    expect(asSession.session).toMatchObject({ method: "password", csrfToken: started!.session!.csrfToken });
    expect(await failure(identity.client.tokens.authenticateToken({ token: secret }))).toMatchObject({ code: "unauthenticated" });
    const { token } = await identity.client.tokens.issueToken({ email: member.email, label: "" });
    expect(await failure(identity.client.tokens.authenticateToken({ token, session: true }))).toMatchObject({ code: "unauthenticated" });

    // A session's caller passes its user on to a short-lived token, as a token's caller does.
    const issued = await identity.client.tokens.issueCallerToken({ caller: asSession.caller, label: "published URL", ttlSeconds: 60 });
    expect((await identity.client.tokens.authenticateToken({ token: issued.token })).user!.id).toBe(member.userId);
    await identity.client.sessions.endSession({ caller: asSession.caller });
    expect(await failure(identity.client.tokens.issueCallerToken({ caller: asSession.caller, label: "after", ttlSeconds: 60 }))).toMatchObject({
      code: "unauthenticated",
    });
  });

  it("counts concurrent wrong guesses each: the lockout is reached however they arrive", async () => {
    const member = await person();
    const guesses = await Promise.allSettled(
      Array.from({ length: 5 }, (_, index) => identity.client.sessions.signInWithPassword({ email: member.email, password: `wrong guess ${index}!` })),
    );
    expect(guesses.every((guess) => guess.status === "rejected")).toBe(true);
    const locked = await identity.client.sessions.signInWithPassword({ email: member.email, password: PASSWORD });
    expect(locked.started).toBeUndefined();
    expect(locked.lockedForSeconds).toBeGreaterThan(0);
    // A new password clears the lockout.
    await identity.client.sessions.setPassword({ email: member.email, password: PASSWORD });
    expect((await identity.client.sessions.signInWithPassword({ email: member.email, password: PASSWORD })).started).toBeDefined();
  });

  it("uses a reset token once, even for two resets at the same moment", async () => {
    const member = await person();
    const { token } = await identity.client.sessions.createPasswordReset({ email: member.email });
    const resets = await Promise.allSettled([
      identity.client.sessions.resetPassword({ token, password: "first new passphrase" }),
      identity.client.sessions.resetPassword({ token, password: "second new passphrase" }),
    ]);
    expect(resets.filter((reset) => reset.status === "fulfilled")).toHaveLength(1);
    expect(resets.filter((reset) => reset.status === "rejected")).toHaveLength(1);
    expect(await failure(identity.client.sessions.createPasswordReset({ email: uniqueEmail("nobody") }))).toMatchObject({ code: "not_found" });
  });

  it("refuses a join with a password where the organization requires SSO", async () => {
    const organization = await createOrganization(identity.clients);
    await identity.client.organizations.updateOrganization(
      UpdateOrganizationRequest.fromPartial({ caller: organization.owner.caller, organizationId: organization.organizationId, updateMask: ["sso"], sso: true }),
    );
    const { inviteId } = await identity.client.organizations.createLinkInvite({
      organizationId: organization.organizationId,
      role: MemberRole.MEMBER_ROLE_EDIT,
    });
    const refused = await failure(
      identity.client.sessions.joinWithPassword({
        organizationId: organization.organizationId,
        inviteId,
        email: uniqueEmail("joiner"),
        password: PASSWORD,
        displayName: "Joiner",
      }),
    );
    expect(refused).toMatchObject({ code: "permission_denied" });
    expect(refused.message).toMatch(/requires single sign-on/);
  });

  // Last: it moves the clock a day on.
  it("sweeps sessions a day after they ended and keeps the live ones", async () => {
    const member = await person();
    const ended = (await identity.client.sessions.signInWithPassword({ email: member.email, password: PASSWORD })).started!;
    const live = (await identity.client.sessions.signInWithPassword({ email: member.email, password: PASSWORD })).started!;
    const caller = (await identity.client.tokens.authenticateToken({ token: ended.secret, session: true })).caller!;
    expect((await identity.client.sessions.endSession({ caller })).ended).toBe(true);
    expect((await identity.client.sessions.endSession({ caller })).ended).toBe(false);
    const exists = (id: string) => forkEm(identity.running.orm).count(Session, { id });

    identity.clock.advance(25 * 60 * 60 * 1000);
    // The other one was idle past SESSION_IDLE_MS (8 h) a moment ago: ended, kept for a day.
    await eventually(async () => (await exists(ended.session!.id)) === 0, 20_000);
    expect(await exists(live.session!.id)).toBe(1);
    expect(await failure(identity.client.tokens.authenticateToken({ token: live.secret, session: true }))).toMatchObject({ code: "unauthenticated" });
  });
});
