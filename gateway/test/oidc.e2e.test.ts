import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, uniqueEmail } from "@imprint/runtime/testing";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { IDP_CLIENT_ID as CLIENT_ID, IDP_CLIENT_SECRET as CLIENT_SECRET, startTestIdp, type IdpPerson as Person, type TestIdp } from "./support/oidc-idp.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Signing in with OpenID Connect end to end, against a real OpenID provider on loopback
 * (`oidc-provider`, its login answered programmatically for the person the test chooses): providers
 * managed by admins, the authorization code flow with PKCE and client_secret_basic, the session
 * cookie it sets, joining through an invite link or an e-mail domain, and what is refused.
 */
const EXTENSION = { notInOpenApi: "Imprint's OpenID Connect sign-in (docs/api.md, extensions)" };
/** The IdP's ID tokens live one minute: the expiry test moves identity's clock past it. */
const ID_TOKEN_TTL_SECONDS = 60;

let stack: TestStack;
let org: TestOrganization;
let idp: TestIdp;
let issuer: string;
let providerId: string;

beforeAll(async () => {
  stack = await startStack({ identityOnClock: true, identityEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  org = await createOrganization(stack);
  idp = await startTestIdp(`${stack.baseUrl}/v1/auth/oidc/callback`, { idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS });
  issuer = idp.issuer;
  const created = await call(stack, "POST", `/v1/orgs/${org.organizationId}/oidc-providers`, {
    token: org.owner.token,
    json: { label: "Test IdP", issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    ...EXTENSION,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  providerId = created.body.id as string;
}, 120_000);
afterAll(async () => {
  await idp?.stop();
  await stack?.stop();
});

/** The cookies a browser keeps for the IdP, by name. */
type Jar = Map<string, string>;

function keep(jar: Jar, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";", 1);
    const at = pair!.indexOf("=");
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
}

/** A browser sent back to the redirect URI: the URL, and the cookie the gateway's start set (binding the sign-in to that browser). */
interface Flow {
  url: string;
  cookie: string;
}

/**
 * A browser (a fresh one: no IdP session) starting a sign-in with `person` at the IdP: follows the
 * gateway's start and the IdP's redirects until the IdP sends it back.
 */
async function authorize(person: Person, query = "return=%2Fspaces", through = providerId): Promise<Flow> {
  idp.nextLogin = person;
  const jar: Jar = new Map();
  const start = await fetch(`${stack.baseUrl}/v1/auth/oidc/${through}/start?${query}`, { redirect: "manual" });
  expect(start.status, await start.clone().text()).toBe(302);
  let location = start.headers.get("location")!;
  expect(location.startsWith(`${issuer}/auth?`)).toBe(true);
  const binding = start.headers.getSetCookie().find((cookie) => cookie.startsWith("imprint_oidc_state="));
  expect(binding).toMatch(/^imprint_oidc_state=[\w-]+; Path=\/v1\/auth\/oidc\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/);
  expect(new URL(location).searchParams.get("code_challenge_method")).toBe("S256");
  for (let hops = 0; location.startsWith(issuer); hops += 1) {
    expect(hops).toBeLessThan(10);
    const answer = await fetch(location, { redirect: "manual", headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") } });
    keep(jar, answer);
    expect([302, 303], await answer.clone().text()).toContain(answer.status);
    location = new URL(answer.headers.get("location")!, location).href;
  }
  expect(location.startsWith(`${stack.baseUrl}/v1/auth/oidc/callback?`)).toBe(true);
  return { url: location, cookie: binding!.split(";", 1)[0]! };
}

/** The browser back at the redirect URI (`cookie` "": another browser). */
const complete = (flow: Flow) => fetch(flow.url, { redirect: "manual", headers: flow.cookie ? { cookie: flow.cookie } : {} });

function sessionCookie(response: Response): string {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith("imprint_session="));
  expect(line).toMatch(/^imprint_session=ims_[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
  return line!.split(";", 1)[0]!;
}

async function expectRefused(response: Response, status: number, message: RegExp): Promise<void> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect([response.status, body.error.message]).toEqual([status, expect.stringMatching(message)]);
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith("imprint_session="))).toBe(false);
}

describe("OpenID providers", () => {
  it("are managed by admins, never show their secret, and are listed for sign-in pages without a token", async () => {
    const path = `/v1/orgs/${org.organizationId}/oidc-providers`;
    const owner = { token: org.owner.token, ...EXTENSION };
    const listed = await call(stack, "GET", path, owner);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      {
        object: "oidc-provider",
        id: providerId,
        label: "Test IdP",
        issuer,
        clientId: CLIENT_ID,
        redirectUri: `${stack.baseUrl}/v1/auth/oidc/callback`,
        startURL: `${stack.baseUrl}/v1/auth/oidc/${providerId}/start`,
        createdAt: expect.any(String),
        urls: { location: `${stack.baseUrl}${path}/${providerId}` },
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(CLIENT_SECRET);

    // Another provider: changed (its secret too, never answered), then deleted.
    const created = await call(stack, "POST", path, { ...owner, json: { label: "Second", issuer, clientId: "second", clientSecret: "s3cret-second" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(created.body.urls.location);
    const second = `${path}/${created.body.id}`;
    const changed = await call(stack, "PATCH", second, { ...owner, json: { label: "Renamed", clientSecret: "another-s3cret" } });
    expect([changed.status, changed.body.label, changed.body.clientId]).toEqual([200, "Renamed", "second"]);
    expect(JSON.stringify(changed.body)).not.toMatch(/s3cret/);
    expect(JSON.stringify((await call(stack, "GET", second, owner)).body)).not.toMatch(/s3cret/);

    // What a sign-in page shows, without a token: SAML's and OpenID's, each with where it starts.
    const sso = await call(stack, "GET", `/v1/orgs/${org.organizationId}/sso`);
    expect(sso.body.items).toEqual([
      { id: providerId, label: "Test IdP", protocol: "oidc", startURL: `${stack.baseUrl}/v1/auth/oidc/${providerId}/start` },
      { id: created.body.id, label: "Renamed", protocol: "oidc", startURL: `${stack.baseUrl}/v1/auth/oidc/${created.body.id}/start` },
    ]);

    // Bad values are 400s naming the field.
    for (const [json, field] of [
      [{ label: "x", issuer: "ftp://idp.example", clientId: "a", clientSecret: "b" }, "issuer"],
      [{ label: "x", issuer: `${issuer}?q=1`, clientId: "a", clientSecret: "b" }, "issuer"],
      [{ label: "x", issuer, clientId: "a", clientSecret: "" }, "clientSecret"],
      [{ label: "", issuer, clientId: "a", clientSecret: "b" }, "label"],
    ] as const) {
      const refused = await call(stack, "POST", path, { ...owner, json });
      expect([refused.status, refused.body.error.message]).toEqual([400, expect.stringContaining(field)]);
    }

    // Not an admin: refused; another organization's admin: not found, by either organization's path.
    const editor = await createMember(stack, org, { role: "edit" });
    expect((await call(stack, "GET", path, { token: editor.token, ...EXTENSION })).status).toBe(403);
    expect(
      (await call(stack, "POST", path, { token: editor.token, json: { label: "x", issuer, clientId: "a", clientSecret: "b" }, ...EXTENSION })).status,
    ).toBe(403);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `${path}/${providerId}`, { token: other.owner.token, ...EXTENSION })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/orgs/${other.organizationId}/oidc-providers/${providerId}`, { token: other.owner.token, ...EXTENSION })).status).toBe(
      404,
    );
    expect(
      (await call(stack, "DELETE", `/v1/orgs/${other.organizationId}/oidc-providers/${providerId}`, { token: other.owner.token, ...EXTENSION })).status,
    ).toBe(204);

    expect((await call(stack, "DELETE", second, owner)).status).toBe(205);
    expect((await call(stack, "DELETE", second, owner)).status).toBe(204);
    expect((await call(stack, "GET", second, owner)).status).toBe(404);

    // Audited as SAML providers are: what changed, never a secret.
    const audited = await eventually(async () => {
      const log = await call(stack, "GET", `/v1/orgs/${org.organizationId}/audit-events?target=${created.body.id}&limit=10`, { token: org.owner.token });
      return log.body.items.length >= 3 ? (log.body.items as { action: string; target: { label?: string }; details?: unknown }[]) : undefined;
    }, 15_000);
    expect(audited.map((entry) => entry.action).sort()).toEqual([
      "organization.oidc-provider.created",
      "organization.oidc-provider.deleted",
      "organization.oidc-provider.updated",
    ]);
    expect(audited.every((entry) => entry.target.label === "Second" || entry.target.label === "Renamed")).toBe(true);
    expect(JSON.stringify(audited)).not.toMatch(/s3cret/);
  });
});

describe("signing in", () => {
  it("signs a member in: the session cookie works on /v1 routes, the browser goes to the return path; the code is used once", async () => {
    const member = await createMember(stack, org, { role: "edit" });
    const flow = await authorize({ email: member.email, verified: true }, "return=%2Fspaces%3Ftab%3D1");
    // The provider's answer opened in another browser (a link handed to a victim): refused, the sign-in kept.
    await expectRefused(await complete({ url: flow.url, cookie: "" }), 400, /not started in this browser/);
    await expectRefused(await complete({ url: flow.url, cookie: "imprint_oidc_state=someone-else" }), 400, /not started in this browser/);
    const signedIn = await complete(flow);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("location")).toBe(`${stack.baseUrl}/spaces?tab=1`);
    const cookie = sessionCookie(signedIn);
    const session = await call(stack, "GET", "/v1/auth/session", { headers: { cookie }, ...EXTENSION });
    expect([session.status, session.body.method, session.body.user.email]).toEqual([200, `oidc:${providerId}`, member.email]);
    const organization = await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { headers: { cookie } });
    expect(organization.status).toBe(200);

    // The same answer again (a replayed code and state): the sign-in was used up.
    await expectRefused(await complete(flow), 400, /state: names no sign-in in progress/);
  });

  it("refuses a state it did not issue, and a return path that leaves the installation", async () => {
    const callback = `${stack.baseUrl}/v1/auth/oidc/callback`;
    await expectRefused(await complete({ url: `${callback}?code=abc&state=forged`, cookie: "imprint_oidc_state=forged" }), 400, /state: names no sign-in/);
    await expectRefused(await complete({ url: `${callback}?code=abc`, cookie: "" }), 400, /state: is required/);
    for (const target of ["https://evil.example/", "//evil.example/", "/\\evil.example", "spaces"]) {
      const start = await fetch(`${stack.baseUrl}/v1/auth/oidc/${providerId}/start?return=${encodeURIComponent(target)}`, { redirect: "manual" });
      await expectRefused(start, 400, /return:/);
    }
    const unknown = await fetch(`${stack.baseUrl}/v1/auth/oidc/${crypto.randomUUID()}/start`, { redirect: "manual" });
    await expectRefused(unknown, 404, /OpenID provider not found/);
  });

  it("lets a non-member join through an invite link, or an e-mail domain of the organization, and refuses anyone else", async () => {
    const invite = await call(stack, "POST", `/v1/orgs/${org.organizationId}/link-invites`, { token: org.owner.token, json: { role: "edit" } });
    expect(invite.status).toBe(201);
    const invited = uniqueEmail("invited");
    const joined = await complete(await authorize({ email: invited, verified: true }, `return=%2F&invite=${invite.body.id}`));
    expect(joined.status, await joined.clone().text()).toBe(302);
    const members = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=1000`, { token: org.owner.token });
    expect(members.body.items.some((item: { user: { email: string } }) => item.user.email === invited)).toBe(true);
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { headers: { cookie: sessionCookie(joined) } })).status).toBe(200);

    // Nobody's invite, no domain of the organization: refused, nobody joins.
    const stranger = uniqueEmail("stranger");
    await expectRefused(await complete(await authorize({ email: stranger, verified: true })), 403, /not a member of this organization/);

    await org.owner.api.orgs.updateOrganizationById(org.organizationId, { emailDomains: ["oidc-domain.test"] });
    const colleague = `colleague-${crypto.randomUUID().slice(0, 8)}@oidc-domain.test`;
    const byDomain = await complete(await authorize({ email: colleague, verified: true }));
    expect(byDomain.status, await byDomain.clone().text()).toBe(302);
    const session = await call(stack, "GET", "/v1/auth/session", { headers: { cookie: sessionCookie(byDomain) }, ...EXTENSION });
    expect(session.body.user.email).toBe(colleague);
  });

  it("refuses an unverified e-mail, a disabled member and an organization that does not allow OpenID Connect", async () => {
    const member = await createMember(stack, org, { role: "edit" });
    await expectRefused(await complete(await authorize({ email: member.email, verified: false })), 403, /has not verified the e-mail/);

    const disabled = await createMember(stack, org, { role: "edit" });
    const db = new pg.Client({ connectionString: stack.databaseUrl("identity") });
    await db.connect();
    try {
      await db.query("update members set disabled = true where organization_id = $1 and user_id = (select id from users where email = $2)", [
        org.organizationId,
        disabled.email,
      ]);
    } finally {
      await db.end();
    }
    await expectRefused(await complete(await authorize({ email: disabled.email, verified: true })), 403, /member of the organization is disabled/);

    const closed = await createOrganization(stack);
    const provider = await call(stack, "POST", `/v1/orgs/${closed.organizationId}/oidc-providers`, {
      token: closed.owner.token,
      json: { label: "Closed", issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      ...EXTENSION,
    });
    expect(provider.status).toBe(201);
    expect((await call(stack, "PATCH", `/v1/orgs/${closed.organizationId}`, { token: closed.owner.token, json: { signInMethods: ["password"] } })).status).toBe(
      200,
    );
    await expectRefused(
      await complete(await authorize({ email: closed.owner.email, verified: true }, "return=%2F", provider.body.id as string)),
      403,
      /does not allow signing in with OpenID Connect/,
    );
  });

  it("refuses an ID token for another client, and an expired one", async () => {
    const member = await createMember(stack, org, { role: "edit" });
    const flow = await authorize({ email: member.email, verified: true });
    idp.rewriteIdToken = (claims) => ({ ...claims, aud: "another-client" });
    try {
      await expectRefused(await complete(flow), 400, /answer was refused.*"aud" \(audience\)/);
    } finally {
      idp.rewriteIdToken = undefined;
    }

    // Identity's clock five minutes on: the IdP's one-minute ID token has expired by then (the sign-in has not).
    const later = await authorize({ email: member.email, verified: true });
    stack.clock.advance(5 * 60_000);
    await expectRefused(await complete(later), 400, /answer was refused.*"exp" \(expiration time\) claim value, expiration is past/);
  });
});
