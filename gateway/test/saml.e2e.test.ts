import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * SAML single sign-on end to end, the test acting as the identity provider with key pairs and
 * certificates it makes (openssl): providers managed by admins, a real SP-initiated sign-in, and
 * every forged or stale response refused with a 400, no member created.
 */
let stack: TestStack;
let org: TestOrganization;
let editor: TestUser;
let workDir: string;
const idp = { key: "", cert: "" };
const other = { key: "", cert: "" };
const IDP_ENTITY = "https://idp.example.test/metadata";

function makeCertificate(name: string, bits: number): { key: string; cert: string } {
  const keyPath = join(workDir, `${name}.key`);
  const certPath = join(workDir, `${name}.pem`);
  execFileSync("openssl", ["req", "-x509", "-newkey", `rsa:${bits}`, "-nodes", "-keyout", keyPath, "-out", certPath, "-days", "2", "-subj", `/CN=${name}`], {
    stdio: "ignore",
  });
  return { key: readFileSync(keyPath, "utf8"), cert: readFileSync(certPath, "utf8") };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "imprint-saml-"));
  Object.assign(idp, makeCertificate("idp", 2048));
  Object.assign(other, makeCertificate("other", 2048));
  stack = await startStack();
  org = await createOrganization(stack);
  editor = await createMember(stack, org, { role: "edit" });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const samlPath = (id = "") => `/v1/orgs/${org.organizationId}/saml${id ? `/${id}` : ""}`;
const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });

interface Provider {
  id: string;
  status: string;
  service: { acsURL: string; startURL: string; entityID: string };
}

async function newProvider(extra: Record<string, unknown> = {}): Promise<Provider> {
  const created = await call(
    stack,
    "POST",
    samlPath(),
    owner({ label: "Acme IdP", entityID: IDP_ENTITY, ssoURL: "https://idp.example.test/sso", certificate: idp.cert, ...extra }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as Provider;
}

/** Starts a sign-in as a browser would, and answers the AuthnRequest's ID the provider must answer. */
async function startSignIn(provider: Provider): Promise<string> {
  const started = await fetch(provider.service.startURL, { redirect: "manual" });
  expect(started.status).toBe(302);
  const location = new URL(started.headers.get("location")!);
  expect(location.origin + location.pathname).toBe("https://idp.example.test/sso");
  const request = inflateRawSync(Buffer.from(location.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
  expect(request).toContain(`AssertionConsumerServiceURL="${provider.service.acsURL}"`);
  return /\sID="([^"]+)"/.exec(request)![1]!;
}

interface AssertionOptions {
  requestId?: string | null;
  email?: string;
  audience?: string;
  recipient?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  groups?: string[];
  assertionId?: string;
}

let sequence = 0;
function assertionXml(provider: Provider, options: AssertionOptions): string {
  const now = Date.now();
  const iso = (date: Date) => date.toISOString();
  const inResponseTo = options.requestId ? ` InResponseTo="${options.requestId}"` : "";
  const notBefore = iso(options.notBefore ?? new Date(now - 60_000));
  const notOnOrAfter = iso(options.notOnOrAfter ?? new Date(now + 5 * 60_000));
  const groups = (options.groups ?? []).map((group) => `<saml:AttributeValue>${group}</saml:AttributeValue>`).join("");
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.assertionId ?? `_assertion${++sequence}${now}`}" Version="2.0" IssueInstant="${iso(new Date(now))}">` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${options.email ?? "dana@acme.test"}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${notOnOrAfter}" Recipient="${options.recipient ?? provider.service.acsURL}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${options.audience ?? provider.service.entityID}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(new Date(now))}" SessionIndex="_session${sequence}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="groups">${groups}</saml:Attribute><saml:Attribute Name="first_name"><saml:AttributeValue>Dana</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** Signs the (first) assertion of `xml` with `signer`'s key, the signature after its Issuer. */
function signAssertion(xml: string, signer: { key: string; cert: string }): string {
  const signature = new SignedXml({
    privateKey: signer.key,
    publicCert: signer.cert,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  signature.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
  });
  signature.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" } });
  return signature.getSignedXml();
}

function responseXml(provider: Provider, assertion: string, requestId: string | null): string {
  const inResponseTo = requestId ? ` InResponseTo="${requestId}"` : "";
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_response${++sequence}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${provider.service.acsURL}"${inResponseTo}>` +
    `<saml:Issuer>${IDP_ENTITY}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}

/** A signed response answering `requestId` (the usual case); options change one thing at a time. */
function signedResponse(provider: Provider, requestId: string | null, options: AssertionOptions = {}, signer = idp): string {
  return responseXml(provider, signAssertion(assertionXml(provider, { requestId, ...options }), signer), requestId);
}

async function post(provider: Provider, xml: string): Promise<{ status: number; text: string }> {
  const response = await fetch(provider.service.acsURL, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString("base64") }).toString(),
  });
  return { status: response.status, text: await response.text() };
}

async function memberEmails(): Promise<string[]> {
  const members = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members?limit=100`, owner());
  return (members.body.items as { user: { email: string } }[]).map((member) => member.user.email);
}

describe("SAML providers", () => {
  it("are managed by admins, with certificates, URLs and teams checked, and listed for sign-in pages without a token", async () => {
    const team = (await call(stack, "PUT", `/v1/orgs/${org.organizationId}/teams`, owner({ title: "Support" }))).body as { id: string };
    const refused = [
      [{ certificate: "not a certificate" }, "certificate: is not a PEM X.509 certificate"],
      [{ certificate: makeCertificate("weak", 1024).cert }, "certificate: an RSA key must have at least 2048 bits (this one has 1024)"],
      [{ ssoURL: "http://idp.example.test/sso" }, "ssoURL: must be an https URL"],
      [{ defaultTeam: "00000000-0000-4000-8000-000000000000" }, "defaultTeam: must be a team of the organization"],
    ] as const;
    for (const [change, message] of refused) {
      const response = await call(
        stack,
        "POST",
        samlPath(),
        owner({ label: "Bad", entityID: IDP_ENTITY, ssoURL: "https://idp.example.test/sso", certificate: idp.cert, ...change }),
      );
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
    expect(
      (
        await call(stack, "POST", samlPath(), {
          token: editor.token,
          json: { label: "Mine", entityID: IDP_ENTITY, ssoURL: "https://idp.example.test/sso", certificate: idp.cert },
        })
      ).status,
    ).toBe(403);

    // Through GitBook's own client.
    const api = org.owner.api.orgs;
    const provider = (
      await api.createOrganizationSamlProvider(org.organizationId, {
        label: "Acme IdP",
        entityID: IDP_ENTITY,
        ssoURL: "https://idp.example.test/sso",
        certificate: idp.cert,
        defaultTeam: team.id,
        defaultRole: "comment" as never,
      })
    ).data;
    expect(provider).toMatchObject({ object: "saml-provider", status: "pending", defaultRole: "comment", defaultTeam: { id: team.id, title: "Support" } });
    expect(provider.service.acsURL).toBe(`${stack.baseUrl}/v1/sso/saml/${provider.id}/acs`);
    expect((await api.getOrganizationSamlProviderById(org.organizationId, provider.id)).data).toMatchObject({ id: provider.id, label: "Acme IdP" });
    expect((await api.updateOrganizationSamlProvider(org.organizationId, provider.id, { label: "Acme SSO" })).data).toMatchObject({ label: "Acme SSO" });
    expect((await api.listSamlProvidersInOrganizationById(org.organizationId)).data.items.map((item) => item.id)).toContain(provider.id);
    expect((await call(stack, "GET", samlPath(provider.id), { token: editor.token })).status).toBe(403);
    const outsider = await createOrganization(stack);
    expect((await call(stack, "GET", samlPath(provider.id), { token: outsider.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/orgs/${outsider.organizationId}/saml/${provider.id}`, { token: outsider.owner.token })).status).toBe(404);

    // What a sign-in page shows, without a token.
    const logins = await fetch(`${stack.baseUrl}/v1/orgs/${org.organizationId}/sso`);
    expect(((await logins.json()) as { items: unknown[] }).items).toContainEqual({
      id: provider.id,
      label: "Acme SSO",
      protocol: "saml",
      startURL: provider.service.startURL,
    });
    expect((await api.listSsoProviderLoginsInOrganization(org.organizationId)).data.items.map((item) => item.id)).toContain(provider.id);

    expect((await call(stack, "DELETE", samlPath(provider.id), owner())).status).toBe(205);
    expect((await call(stack, "DELETE", samlPath(provider.id), owner())).status).toBe(204);
  });
});

describe("SAML sign-in", () => {
  it("signs a user in: an SSO member with the default role and team, the teams its groups name, and a short-lived token", async () => {
    const support = (await call(stack, "PUT", `/v1/orgs/${org.organizationId}/teams`, owner({ title: "Support" }))).body as { id: string };
    const engineering = (await call(stack, "PUT", `/v1/orgs/${org.organizationId}/teams`, owner({ title: "Engineering" }))).body as { id: string };
    const provider = await newProvider({ defaultTeam: support.id, defaultRole: "read" });
    const requestId = await startSignIn(provider);

    const signedIn = await post(provider, signedResponse(provider, requestId, { email: "Dana@Acme.test", groups: ["Engineering", "Unknown group"] }));
    expect(signedIn.status, signedIn.text).toBe(200);
    const token = /<code id="token">([^<]+)<\/code>/.exec(signedIn.text)![1]!;
    const me = await call(stack, "GET", "/v1/user", { token });
    expect(me.body).toMatchObject({ email: "dana@acme.test", displayName: "Dana" });
    const member = (await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${me.body.id}`, owner())).body;
    expect(member).toMatchObject({ role: "read", sso: true, teams: 2 });
    const teams = (await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${me.body.id}/teams`, owner())).body.items.map(
      (item: { team: { id: string } }) => item.team.id,
    );
    expect(teams.sort()).toEqual([support.id, engineering.id].sort());
    expect((await call(stack, "GET", samlPath(provider.id), owner())).body.status).toBe("active");

    // The same response again is a replay.
    const replayed = await post(provider, signedResponse(provider, requestId, { email: "dana@acme.test" }));
    expect(replayed.status).toBe(400);

    // Once the organization requires SSO, members other than admins act only with tokens issued through it.
    const spaces = `/v1/orgs/${org.organizationId}/spaces`;
    expect((await call(stack, "GET", spaces, { token: editor.token })).status).toBe(200);
    expect((await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, owner({ sso: true }))).status).toBe(200);
    try {
      await eventually(async () => (await call(stack, "GET", spaces, { token: editor.token })).status === 404, 10_000);
      expect((await call(stack, "POST", `/v1/orgs/${org.organizationId}/ping`, { token: editor.token })).status).toBe(404);
      expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: editor.token })).status).toBe(404);
      expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/members`, { token: editor.token })).status).toBe(404);
      expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/members`, { token })).status).toBe(200);
      expect((await call(stack, "GET", spaces, { token })).status).toBe(200);
      expect((await call(stack, "GET", spaces, owner())).status).toBe(200);
    } finally {
      expect((await call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, owner({ sso: false }))).status).toBe(200);
    }
    await eventually(async () => (await call(stack, "GET", spaces, { token: editor.token })).status === 200, 10_000);
  });

  it("refuses forged, misdirected, stale, replayed and unsolicited responses, and XML bombs, creating nobody", async () => {
    const provider = await newProvider();
    const before = await memberEmails();
    const refusals: [string, (requestId: string) => string, RegExp][] = [
      [
        "unsigned assertion",
        (id) => responseXml(provider, assertionXml(provider, { requestId: id, email: "unsigned@evil.test" }), id),
        /SAMLResponse: Invalid signature/,
      ],
      ["signed by another key", (id) => signedResponse(provider, id, { email: "other-key@evil.test" }, other), /SAMLResponse: Invalid signature/],
      [
        "signature wrapping",
        (id) => {
          const genuine = signAssertion(assertionXml(provider, { requestId: id, email: "genuine@acme.test" }), idp);
          const evil = assertionXml(provider, { requestId: id, email: "wrapped@evil.test", assertionId: "_evil" });
          return responseXml(provider, evil + genuine, id);
        },
        /SAMLResponse: Invalid signature: multiple assertions/,
      ],
      [
        "comment in the NameID",
        (id) => signedResponse(provider, id, { email: "admin@acme.test<!---->.evil.test" }),
        /SAMLResponse: XML comments are not accepted/,
      ],
      [
        "wrong audience",
        (id) => signedResponse(provider, id, { email: "audience@evil.test", audience: "https://other-sp.example.test" }),
        /SAMLResponse: SAML assertion audience mismatch/,
      ],
      [
        "wrong recipient",
        (id) => signedResponse(provider, id, { email: "recipient@evil.test", recipient: "https://other-sp.example.test/acs" }),
        /SAMLResponse: the assertion's recipient must be/,
      ],
      [
        "expired",
        (id) =>
          signedResponse(provider, id, {
            email: "expired@evil.test",
            notBefore: new Date(Date.now() - 3_600_000),
            notOnOrAfter: new Date(Date.now() - 1_800_000),
          }),
        /SAMLResponse: No valid subject confirmation/,
      ],
      [
        "not yet valid",
        (id) =>
          signedResponse(provider, id, {
            email: "early@evil.test",
            notBefore: new Date(Date.now() + 1_800_000),
            notOnOrAfter: new Date(Date.now() + 3_600_000),
          }),
        /SAMLResponse: SAML assertion not yet valid/,
      ],
      ["unsolicited", () => signedResponse(provider, null, { email: "unsolicited@evil.test" }), /SAMLResponse: InResponseTo is missing/],
      [
        "answering a request never issued",
        () => signedResponse(provider, "_never_issued", { email: "unknown-request@evil.test" }),
        /SAMLResponse: InResponseTo is not valid/,
      ],
      [
        "XML bomb",
        (id) =>
          `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>${signedResponse(provider, id, { email: "bomb@evil.test" })}`,
        /SAMLResponse: document type declarations are not accepted/,
      ],
      [
        "external entity",
        (id) => `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${signedResponse(provider, id, { email: "xxe@evil.test" })}`,
        /SAMLResponse: document type declarations are not accepted/,
      ],
    ];
    for (const [name, build, message] of refusals) {
      const requestId = await startSignIn(provider);
      const response = await post(provider, build(requestId));
      expect(response.status, `${name}: ${response.text}`).toBe(400);
      expect((JSON.parse(response.text) as { error: { message: string } }).error.message, name).toMatch(message);
    }
    expect(await memberEmails()).toEqual(before);
    expect((await call(stack, "GET", samlPath(provider.id), owner())).body.status).toBe("pending");

    // Once answered, a request cannot be answered again, even by a new, genuine assertion.
    const requestId = await startSignIn(provider);
    expect((await post(provider, signedResponse(provider, requestId, { email: "first@acme.test" }))).status).toBe(200);
    expect((await post(provider, signedResponse(provider, requestId, { email: "second@acme.test" }))).status).toBe(400);
    expect(await memberEmails()).toContain("first@acme.test");
    expect(await memberEmails()).not.toContain("second@acme.test");
  });
});
