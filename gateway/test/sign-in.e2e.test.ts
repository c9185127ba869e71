import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testLogger, uniqueEmail } from "@imprint/runtime/testing";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallOptions, type CallResult } from "./support/http.js";
import { adminCli as runAdminCli } from "./support/app-browser.js";
import { startStack, UNREACHED_RATE_LIMITS, type TestStack } from "./support/stack.js";
import { loadGatewayConfig, startGateway, type GatewayHandle } from "../src/index.js";

/**
 * People's sign-in end to end: passwords set through the admin CLI, sessions in an HttpOnly cookie
 * used on every /v1 route, the CSRF token every change of a session carries, lockout, idle and
 * absolute expiry (identity and the gateway on the test's clock), signing out, reset links,
 * joining through an invite link with a new account, personal API tokens, and the organizations'
 * sign-in methods and SSO rule.
 */
const LOCKOUT_MS = 60_000;
const IDLE_MS = 10 * 60_000;
const MAX_MS = 60 * 60_000;
const APP_URL = "https://docs.example.test";
const PASSWORD = "correct horse battery staple";
/** The gateway's default AUTH_CACHE_TTL_MS: how long a verified session is reused without asking identity. */
const AUTH_CACHE_TTL_MS = 5_000;
const EXTENSION = { notInOpenApi: "Imprint's sign-in and personal tokens (docs/api.md, extensions)" };

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack({
    identityOnClock: true,
    gatewayOnClock: true,
    identityEnv: { PASSWORD_LOCKOUT_MS: String(LOCKOUT_MS), SESSION_IDLE_MS: String(IDLE_MS), SESSION_MAX_MS: String(MAX_MS) },
  });
  org = await createOrganization(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Runs the admin CLI against the stack's identity, `input` on its standard input; reset links are built on APP_URL. */
const adminCli = (args: string[], input = "") => runAdminCli(stack, args, input, APP_URL);

async function setPassword(email: string, password = PASSWORD): Promise<void> {
  const result = await adminCli(["password", email], `${password}\n`);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).not.toContain(password);
  expect(JSON.parse(result.stdout)).toMatchObject({ passwordSet: true });
}

/** A person (a member of `org` with `role`) with a password. */
async function person(role: "edit" | "read" = "edit") {
  const member = await createMember(stack, org, { role });
  await setPassword(member.email);
  return member;
}

interface Session {
  cookie: string;
  csrf: string;
}

function cookieOf(response: CallResult): string {
  const header = response.headers.get("set-cookie") ?? "";
  expect(header).toMatch(/^imprint_session=ims_/);
  return header.split(";", 1)[0]!;
}

function signInRequest(email: string, password: string, options: CallOptions = {}) {
  return call(stack, "POST", "/v1/auth/password", { json: { email, password }, ...EXTENSION, ...options });
}

async function signIn(email: string, password = PASSWORD): Promise<Session> {
  const response = await signInRequest(email, password);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { cookie: cookieOf(response), csrf: response.body.csrfToken as string };
}

/** A request with the session's cookie; its CSRF token unless `csrf` says otherwise (null: none). */
function asSession(session: Session, method: string, path: string, options: { json?: unknown; csrf?: string | null; headers?: Record<string, string> } = {}) {
  const csrf = options.csrf === undefined ? session.csrf : options.csrf;
  return call(stack, method, path, {
    ...(options.json === undefined ? {} : { json: options.json }),
    headers: { cookie: session.cookie, ...(csrf === null ? {} : { "x-csrf-token": csrf }), ...options.headers },
    ...(path.startsWith("/v1/auth") || path.startsWith("/v1/user/tokens") ? EXTENSION : {}),
  });
}

describe("signing in with a password", () => {
  it("sets a password with the admin CLI, signs in, and uses the session cookie on /v1 routes", async () => {
    const member = await person();
    const response = await signInRequest(member.email.toUpperCase(), PASSWORD);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ user: { object: "user", id: member.userId, email: member.email }, csrfToken: expect.any(String) });
    expect(Date.parse(response.body.expiresAt as string)).toBeGreaterThan(Date.now());
    const setCookie = response.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    // The stack serves plain http.
    expect(setCookie).not.toContain("Secure");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const session = { cookie: cookieOf(response), csrf: response.body.csrfToken as string };

    const current = await asSession(session, "GET", "/v1/auth/session");
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ user: { id: member.userId }, csrfToken: session.csrf, method: "password" });
    expect((await asSession(session, "GET", "/v1/user", { csrf: null })).body).toMatchObject({ id: member.userId });
    const organization = await asSession(session, "GET", `/v1/orgs/${org.organizationId}`, { csrf: null });
    expect(organization.status).toBe(200);
    expect(organization.body.signInMethods).toEqual(["password", "oidc", "saml"]);

    // A bearer request has no session to describe.
    expect((await call(stack, "GET", "/v1/auth/session", { token: member.token, ...EXTENSION })).status).toBe(401);
  });

  it("refuses the CLI a short password or an unknown user, and shows no password", async () => {
    const member = await createMember(stack, org, { role: "read" });
    const short = await adminCli(["password", member.email], "too short\n");
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 12 characters/);
    const unknown = await adminCli(["password", uniqueEmail("nobody")], `${PASSWORD}\n`);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/User not found/);
  });

  it("answers an unknown e-mail and a wrong password alike (401), a malformed body 400", async () => {
    const member = await person();
    const wrong = await signInRequest(member.email, "not the right password");
    const unknown = await signInRequest(uniqueEmail("nobody"), PASSWORD);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect((await signInRequest(member.email, "short")).status).toBe(400);
    expect((await call(stack, "POST", "/v1/auth/password", { json: { email: member.email }, ...EXTENSION })).status).toBe(400);
    const text = await call(stack, "POST", "/v1/auth/password", { rawBody: "x", headers: { "content-type": "text/plain" }, ...EXTENSION });
    expect(text.status).toBe(415);
  });

  it("takes a form post only from the installation's own origin", async () => {
    const member = await person();
    const form = new URLSearchParams({ email: member.email, password: PASSWORD }).toString();
    const formPost = (origin?: string) =>
      call(stack, "POST", "/v1/auth/password", {
        rawBody: form,
        headers: { "content-type": "application/x-www-form-urlencoded", ...(origin ? { origin } : {}) },
        ...EXTENSION,
      });
    expect((await formPost()).status).toBe(403);
    expect((await formPost("https://attacker.example")).status).toBe(403);
    const same = await formPost(stack.baseUrl);
    expect(same.status).toBe(200);
    expect(cookieOf(same)).toMatch(/^imprint_session=/);
  });

  it("locks an account after 10 failures: 429 with Retry-After even for the right password, until the window passes", async () => {
    const member = await person();
    for (let attempt = 0; attempt < 10; attempt++) expect((await signInRequest(member.email, `wrong password ${attempt}`)).status).toBe(401);
    const locked = await signInRequest(member.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(locked.headers.get("retry-after"))).toBeLessThanOrEqual(LOCKOUT_MS / 1000);
    expect(locked.body.error.message).toMatch(/locked/);
    expect(locked.headers.get("set-cookie")).toBeNull();
    stack.clock.advance(LOCKOUT_MS + 1000);
    await signIn(member.email);
  });
});

describe("CSRF", () => {
  it("refuses a session's change without the right X-CSRF-Token (403), whatever its Origin; bearer requests need none", async () => {
    const member = await person();
    const session = await signIn(member.email);
    const path = `/v1/users/${member.userId}`;
    const rename = (displayName: string, options: { csrf?: string | null; headers?: Record<string, string> } = {}) =>
      asSession(session, "PATCH", path, { json: { displayName }, ...options });
    expect((await rename("No token", { csrf: null })).status).toBe(403);
    expect((await rename("Wrong token", { csrf: "x".repeat(43) })).status).toBe(403);
    expect((await rename("Same origin", { csrf: null, headers: { origin: stack.baseUrl, referer: `${stack.baseUrl}/` } })).status).toBe(403);
    const renamed = await rename("Right token");
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe("Right token");
    // Nothing refused was applied.
    expect((await asSession(session, "GET", "/v1/user")).body.displayName).toBe("Right token");
    // Signing out is a change too.
    expect((await asSession(session, "POST", "/v1/auth/sign-out", { csrf: null })).status).toBe(403);
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(200);

    const bearer = await call(stack, "PATCH", path, { token: member.token, json: { displayName: "By token" } });
    expect(bearer.status).toBe(200);
  });
});

describe("session expiry", () => {
  it("ends a session unused for SESSION_IDLE_MS", async () => {
    const member = await person();
    const session = await signIn(member.email);
    stack.clock.advance(IDLE_MS / 2);
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(200);
    stack.clock.advance(IDLE_MS / 2 + 60_000);
    // Used half-way: still alive although the sign-in is older than the idle timeout.
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(200);
    stack.clock.advance(IDLE_MS + 1000);
    const ended = await asSession(session, "GET", "/v1/user");
    expect(ended.status).toBe(401);
  });

  it("ends a session SESSION_MAX_MS after its sign-in, however used", async () => {
    const member = await person();
    const session = await signIn(member.email);
    let elapsed = 0;
    while (elapsed + IDLE_MS - 60_000 < MAX_MS) {
      stack.clock.advance(IDLE_MS - 60_000);
      elapsed += IDLE_MS - 60_000;
      expect((await asSession(session, "GET", "/v1/user")).status).toBe(200);
    }
    stack.clock.advance(MAX_MS - elapsed + 1000);
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(401);
  });
});

describe("signing out", () => {
  it("ends the session on the server and clears the cookie", async () => {
    const member = await person();
    const session = await signIn(member.email);
    const other = await signIn(member.email);
    const out = await asSession(session, "POST", "/v1/auth/sign-out");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^imprint_session=; .*Max-Age=0/);
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(401);
    // Only that session: another one goes on.
    expect((await asSession(other, "GET", "/v1/user")).status).toBe(200);
  });

  it("signs out everywhere: every session of the person ends, their API tokens keep working", async () => {
    const member = await person();
    const first = await signIn(member.email);
    const second = await signIn(member.email);
    expect((await asSession(second, "GET", "/v1/user")).status).toBe(200);
    expect((await asSession(first, "POST", "/v1/auth/sign-out-everywhere")).status).toBe(204);
    expect((await asSession(first, "GET", "/v1/user")).status).toBe(401);
    expect((await asSession(second, "GET", "/v1/user")).status).toBe(401);
    expect((await call(stack, "GET", "/v1/user", { token: member.token })).status).toBe(200);
  });
});

describe("behind an https public URL, on another gateway", () => {
  let https: GatewayHandle;
  beforeAll(async () => {
    https = await startGateway(loadGatewayConfig({ ...stack.upstreamEnv, IMPRINT_PORT: "0", IMPRINT_PUBLIC_URL: APP_URL, ...UNREACHED_RATE_LIMITS }), {
      logger: testLogger("https gateway"),
      clock: stack.clock.now,
    });
  });
  afterAll(() => https?.stop());

  it("marks the cookie Secure, takes form posts from the public origin, and refuses a session signed out elsewhere once its cache's freshness ran out", async () => {
    const member = await person();
    const viaHttps = { ...stack, baseUrl: https.url };
    const form = new URLSearchParams({ email: member.email, password: PASSWORD }).toString();
    const signedIn = await call(viaHttps, "POST", "/v1/auth/password", {
      rawBody: form,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: APP_URL },
      ...EXTENSION,
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("set-cookie")).toMatch(/; Secure/);
    const session = { cookie: cookieOf(signedIn), csrf: signedIn.body.csrfToken as string };
    const read = () => call(viaHttps, "GET", "/v1/user", { headers: { cookie: session.cookie } });
    expect((await read()).status).toBe(200);

    // Signed out through the stack's gateway: this one refuses it once its cached answer is older than AUTH_CACHE_TTL_MS.
    expect((await asSession(session, "POST", "/v1/auth/sign-out")).status).toBe(204);
    stack.clock.advance(AUTH_CACHE_TTL_MS + 1000);
    expect((await read()).status).toBe(401);
  });
});

describe("reset links", () => {
  it("prints a single-use link whose token sets a new password and ends the person's sessions", async () => {
    const member = await person();
    const session = await signIn(member.email);
    const result = await adminCli(["reset-link", member.email]);
    expect(result.code, result.stderr).toBe(0);
    const { link } = JSON.parse(result.stdout) as { link: string };
    expect(link.startsWith(`${APP_URL}/reset-password?token=`)).toBe(true);
    const token = new URL(link).searchParams.get("token")!;
    const newPassword = "a brand new passphrase";

    const reset = await call(stack, "POST", "/v1/auth/password-reset", { json: { token, password: newPassword }, ...EXTENSION });
    expect(reset.status).toBe(204);
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(401);
    expect((await signInRequest(member.email, PASSWORD)).status).toBe(401);
    await signIn(member.email, newPassword);

    const again = await call(stack, "POST", "/v1/auth/password-reset", { json: { token, password: "yet another passphrase" }, ...EXTENSION });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/used or expired/);
    await signIn(member.email, newPassword);
  });
});

describe("joining through an invite link", () => {
  it("creates the account, joins the organization and starts a session", async () => {
    const invite = await call(stack, "POST", `/v1/orgs/${org.organizationId}/link-invites`, { token: org.owner.token, json: { role: "edit" } });
    expect(invite.status).toBe(201);
    const email = uniqueEmail("joiner");
    const body = { organizationId: org.organizationId, invite: invite.body.id as string, email, password: PASSWORD, displayName: "Joiner" };
    const joined = await call(stack, "POST", "/v1/auth/join", { json: body, ...EXTENSION });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body).toMatchObject({ user: { email, displayName: "Joiner" }, csrfToken: expect.any(String) });
    const session = { cookie: cookieOf(joined), csrf: joined.body.csrfToken as string };
    expect((await asSession(session, "GET", `/v1/orgs/${org.organizationId}`)).status).toBe(200);
    const members = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=100`, { token: org.owner.token });
    expect(members.body.items.find((item: { user: { email: string } }) => item.user.email === email)).toMatchObject({ role: "edit" });
    await signIn(email);

    expect((await call(stack, "POST", "/v1/auth/join", { json: body, ...EXTENSION })).status).toBe(409);
    const refusedEmail = uniqueEmail("refused");
    const unknownInvite = await call(stack, "POST", "/v1/auth/join", { json: { ...body, email: refusedEmail, invite: crypto.randomUUID() }, ...EXTENSION });
    expect(unknownInvite.status).toBe(404);
    // Nothing was created for the refused join: the e-mail has no account.
    expect((await signInRequest(refusedEmail, PASSWORD)).status).toBe(401);
    const fresh = await call(stack, "POST", "/v1/auth/join", { json: { ...body, email: refusedEmail }, ...EXTENSION });
    expect(fresh.status).toBe(201);
  });
});

describe("personal API tokens", () => {
  it("creates a token whose secret is shown once and works as a bearer token, lists and revokes it", async () => {
    const member = await person();
    const session = await signIn(member.email);
    const createdToken = await asSession(session, "POST", "/v1/user/tokens", { json: { label: "CI" } });
    expect(createdToken.status).toBe(201);
    expect(createdToken.body).toMatchObject({ object: "api-token", label: "CI", token: expect.stringMatching(/^imp_/) });
    const secret = createdToken.body.token as string;
    expect(createdToken.body.lastFour).toBe(secret.slice(-4));
    expect((await call(stack, "GET", "/v1/user", { token: secret })).body.id).toBe(member.userId);

    const listed = await asSession(session, "GET", "/v1/user/tokens");
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(createdToken.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(listed.body.items.every((item: Record<string, unknown>) => !("token" in item))).toBe(true);

    // Another person's token is not found, and stays valid.
    const strangers = await call(stack, "POST", "/v1/user/tokens", { token: org.owner.token, json: { label: "owner's" }, ...EXTENSION });
    expect(strangers.status).toBe(201);
    expect((await asSession(session, "DELETE", `/v1/user/tokens/${strangers.body.id}`)).status).toBe(404);
    expect((await call(stack, "GET", "/v1/user", { token: strangers.body.token })).status).toBe(200);

    expect((await asSession(session, "DELETE", `/v1/user/tokens/${createdToken.body.id}`)).status).toBe(204);
    // The gateway hears token.revoked; at the latest its cache's freshness runs out.
    await eventually(async () => expect((await call(stack, "GET", "/v1/user", { token: secret })).status).toBe(401));
    expect((await asSession(session, "GET", "/v1/user/tokens")).body.items.map((item: { id: string }) => item.id)).not.toContain(createdToken.body.id);
    expect((await asSession(session, "POST", "/v1/user/tokens", { json: { label: "" } })).status).toBe(400);

    // An Idempotency-Key is the session's own: the same key from another person's session is another request.
    const other = await signIn((await person()).email);
    const keyed = (who: Session) => asSession(who, "POST", "/v1/user/tokens", { json: { label: "keyed" }, headers: { "idempotency-key": "same-key" } });
    const mine = await keyed(session);
    const theirs = await keyed(other);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await keyed(session)).body.id).toBe(mine.body.id);
    expect((await asSession(session, "POST", "/v1/user/tokens", { json: { label: "old", expiresAt: "2001-01-01T00:00:00Z" } })).status).toBe(400);
  });
});

describe("organizations' sign-in methods and SSO", () => {
  it("refuses a password session in an organization that does not allow passwords (403), its bearer tokens not", async () => {
    const other = await createOrganization(stack);
    const member = await createMember(stack, other, { role: "edit" });
    const space = await createSpace(stack, other);
    await setPassword(member.email);
    const session = await signIn(member.email);
    const path = `/v1/orgs/${other.organizationId}`;
    expect((await call(stack, "PATCH", path, { token: other.owner.token, json: { signInMethods: ["fax"] } })).status).toBe(400);
    expect((await call(stack, "PATCH", path, { token: other.owner.token, json: { signInMethods: [] } })).status).toBe(400);
    expect((await call(stack, "PATCH", path, { token: member.token, json: { signInMethods: ["saml"] } })).status).toBe(403);
    const updated = await call(stack, "PATCH", path, { token: other.owner.token, json: { signInMethods: ["saml", "oidc"] } });
    expect(updated.status).toBe(200);
    expect(updated.body.signInMethods).toEqual(["oidc", "saml"]);

    const refused = await asSession(session, "GET", path);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/does not allow signing in with password/);
    expect((await call(stack, "GET", path, { token: member.token })).status).toBe(200);
    // Elsewhere the session still works.
    expect((await asSession(session, "GET", "/v1/user")).status).toBe(200);
    expect((await asSession(session, "GET", `/v1/orgs/${other.organizationId}/members`)).status).toBe(403);
    // Content asks identity for the session's membership: the same refusal.
    const spaceRead = await asSession(session, "GET", `/v1/spaces/${space.id}`);
    expect(spaceRead.status).toBe(403);
    expect(spaceRead.body.error.message).toMatch(/does not allow signing in with password/);
    expect((await call(stack, "GET", `/v1/spaces/${space.id}`, { token: member.token })).status).toBe(200);

    // An admin signed in with a password cannot shut the way they came in.
    await setPassword(other.owner.email);
    const admin = await signIn(other.owner.email);
    expect((await call(stack, "PATCH", path, { token: other.owner.token, json: { signInMethods: ["password", "saml"] } })).status).toBe(200);
    const shut = await asSession(admin, "PATCH", path, { json: { signInMethods: ["saml"] } });
    expect(shut.status).toBe(412);
    expect(shut.body.error.message).toMatch(/must keep password/);
  });

  it("keeps an SSO-required organization's rule: a password session counts as a non-SAML token (404), admins pass", async () => {
    const other = await createOrganization(stack);
    const member = await createMember(stack, other, { role: "edit" });
    await setPassword(member.email);
    await setPassword(other.owner.email);
    const path = `/v1/orgs/${other.organizationId}`;
    expect((await call(stack, "PATCH", path, { token: other.owner.token, json: { sso: true } })).status).toBe(200);
    expect((await asSession(await signIn(member.email), "GET", path)).status).toBe(404);
    expect((await asSession(await signIn(other.owner.email), "GET", path)).status).toBe(200);
  });
});
