import { randomUUID } from "node:crypto";
import lzString from "lz-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, pngBytes } from "@imprint/runtime/testing";
import type { PublishIntegration, RenderIntegrationUI } from "../../node_modules/@gitbook/api/dist/client.js";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Integrations through GitBook's own client (every answer checked against GitBook's schema) on the
 * real integration service: publishing (images and secrets), installations on organizations, spaces
 * and sites, events, development mode, rendering, and what is reached without a token (images, the
 * installations' public endpoints, sites' injected scripts).
 */
let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  // Room for a body carrying an image just past the 1 MiB an image may hold (base64 adds a third).
  // (Tokens are verified at every request, so a revoked one stops at once.)
  stack = await startStack({ gatewayEnv: { BODY_LIMIT_BYTES: String(4 * 1024 * 1024), AUTH_CACHE_TTL_MS: "0" } });
  org = await createOrganization(stack);
  other = await createOrganization(stack);
});
afterAll(() => stack?.stop());

/** Renders one block for `ui_render`, answers "OK" to every other event. */
const SCRIPT = `export default { async fetch(request) { const form = await request.formData(); const event = JSON.parse(form.get("event")); if (event.type === "ui_render") return new Response(JSON.stringify({ type: "element", state: event.state ?? {}, props: event.props, element: { type: "block", children: [{ type: "button", label: "Hi", onPress: { action: "x" } }] } }), { headers: { "content-type": "application/json" } }); return new Response("OK"); } }`;

/** The same, and the `fetch` event (its public endpoint) answered with what reached the script, as 202 with a header of its own. */
const ECHO_SCRIPT = SCRIPT.replace(
  'if (event.type === "ui_render")',
  'if (event.type === "fetch") { const { url, method, headers } = event.request; return new Response(JSON.stringify({ url, method, authorization: headers.authorization ?? null, cookie: headers.cookie ?? null, custom: headers["x-custom"] ?? null, body: form.get("fetch-body") }), { status: 202, headers: { "content-type": "application/json", "x-echo": "yes" } }); } if (event.type === "ui_render")',
);

/** What every answer a script writes carries (the gateway's SCRIPT_ANSWER_SANDBOX), so it never rides a visitor's session. */
const SANDBOX = "sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox";

const uniqueName = (prefix = "gw") => `${prefix}-${randomUUID().slice(0, 8)}`;
const base64 = (bytes: Buffer) => bytes.toString("base64");
const integrationPath = (name: string) => `/v1/integrations/${name}`;

/** GitBook's PublishIntegration with what every test needs; `overrides` win. */
function manifest(overrides: Partial<PublishIntegration> = {}, organization = org): PublishIntegration {
  return {
    organization: organization.organizationId,
    title: "Gateway test",
    description: "An integration under test",
    scopes: [],
    script: SCRIPT,
    ...overrides,
  };
}

async function publish(name: string, overrides: Partial<PublishIntegration> = {}, organization = org) {
  const response = await organization.owner.api.integrations.publishIntegration(name, manifest(overrides, organization));
  expect(response.status).toBe(200);
  return response.data;
}

async function install(name: string, organization = org) {
  const response = await organization.owner.api.integrations.installIntegration(name, { organization: organization.organizationId });
  expect(response.status).toBe(201);
  return response;
}

async function createSite(organization = org) {
  return (await organization.owner.api.orgs.createSite(organization.organizationId, { title: "Integration site" })).data;
}

describe("publishing", () => {
  it("refuses names GitBook's integrationName pattern admits but no integration can have (dot segments, an object's own names) with 400", async () => {
    // (fetch resolves "." and ".." away before sending; the service's own test covers them over gRPC.)
    for (const encoded of ["...", "%2E%2E%2E", "__proto__", "constructor", "toString"]) {
      const response = await call(stack, "POST", integrationPath(encoded), { token: org.owner.token, json: manifest() });
      expect([encoded, response.status, response.body.error.message]).toEqual([encoded, 400, expect.stringMatching(/^integrationName: /)]);
    }
    const fine = await call(stack, "POST", integrationPath(`${uniqueName()}.v2`), { token: org.owner.token, json: manifest() });
    expect(fine.status).toBe(200);
  });

  it("publishes with an icon, previews and secrets, never answers the secrets, counts versions up and serves the images", async () => {
    const name = uniqueName();
    const icon = pngBytes(16, 16);
    const preview = pngBytes(32, 24);
    const published = await publish(name, { icon: base64(icon), previewImages: [base64(preview)], secrets: { API_KEY: "s3cret-value" }, summary: "Says *hi*" });
    expect(published).toMatchObject({
      object: "integration",
      name,
      version: 1,
      title: "Gateway test",
      summary: "Says *hi*",
      visibility: "private",
      target: "all",
      verified: false,
      permissions: { admin: true },
      owner: { object: "organization", id: org.organizationId, title: org.title },
      urls: { location: `${stack.baseUrl}${integrationPath(name)}`, assets: `${stack.baseUrl}${integrationPath(name)}/assets/` },
    });
    expect(published.previewImages).toHaveLength(1);
    expect(published.urls.icon).toMatch(new RegExp(`^${stack.baseUrl}${integrationPath(name)}/assets/`));
    const read = (await org.owner.api.integrations.getIntegrationByName(name)).data;
    expect(read).toEqual(published);
    for (const answer of [published, read]) {
      expect(JSON.stringify(answer)).not.toContain("s3cret-value");
      expect(JSON.stringify(answer)).not.toContain("API_KEY");
    }
    expect(stack.gatewayLogs.length).toBeGreaterThan(0);
    expect(JSON.stringify(stack.gatewayLogs)).not.toContain("s3cret-value");

    // A new publication is a new version; absent images stay.
    const republished = await publish(name, { title: "Gateway test 2" });
    expect(republished).toMatchObject({ version: 2, title: "Gateway test 2", urls: { icon: published.urls.icon }, previewImages: published.previewImages });

    // The images, without a token, as they were sent, cacheable and sandboxed.
    for (const [url, bytes] of [
      [published.urls.icon!, icon],
      [published.previewImages[0]!, preview],
    ] as const) {
      const image = await fetch(url);
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toBe("image/png");
      expect(image.headers.get("cache-control")).toContain("immutable");
      expect(image.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Buffer.from(await image.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect((await call(stack, "GET", `${integrationPath(name)}/assets/${randomUUID()}`, { notInOpenApi: "an integration's image (Imprint's)" })).status).toBe(
      404,
    );
  });

  it("refuses images that are not base64 or too large, naming the field, and publishing by non-admins", async () => {
    const name = uniqueName();
    const refused = async (json: unknown, message: string) => {
      const response = await call(stack, "POST", integrationPath(name), { token: org.owner.token, json });
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    };
    await refused(manifest({ icon: "not base64!" }), "icon: must be base64");
    await refused(manifest({ previewImages: [base64(pngBytes(4, 4)), "%%"] }), "previewImages[1]: must be base64");
    await refused(manifest({ icon: base64(Buffer.alloc(1024 * 1024 + 1)) }), `icon: must be at most ${1024 * 1024} bytes once decoded`);
    const response = await call(stack, "POST", integrationPath(name), { token: org.owner.token, json: { ...manifest(), title: "x" } });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain("title");
    const editor = await createMember(stack, org, { role: "edit" });
    expect((await call(stack, "POST", integrationPath(name), { token: editor.token, json: manifest() })).status).toBe(403);
  });

  it("lists with GitBook's filters; another organization's private integration is 404, its public one shows its owner without permissions", async () => {
    const tag = randomUUID().slice(0, 6);
    const privateName = uniqueName(`priv${tag}`);
    const publicName = uniqueName(`pub${tag}`);
    await publish(privateName, { categories: ["analytics"] as never, scopes: ["site:views:read"] as never });
    await publish(publicName, {
      visibility: "public" as never,
      target: "space" as never,
      blocks: [{ id: "card", title: "Card", urlUnfurl: [`https://${tag}.example.org/*`] }],
    });
    const names = async (query: Parameters<typeof org.owner.api.integrations.listIntegrations>[0], user = org.owner) =>
      (await user.api.integrations.listIntegrations({ limit: 1000, ...query })).data.items.map((item) => item.name);

    expect(await names({ search: tag })).toEqual([privateName, publicName].sort());
    expect(await names({ search: tag, category: "analytics" as never })).toEqual([privateName]);
    expect(await names({ search: tag, scope: "site:views:read" as never })).toEqual([privateName]);
    expect(await names({ search: tag, blocks: true })).toEqual([publicName]);
    expect(await names({ search: tag, blocks: false })).toEqual([privateName]);
    expect(await names({ blockDomain: `${tag}.example.org` })).toEqual([publicName]);
    // An integration for every target can go to sites; one for spaces cannot.
    expect(await names({ search: tag, target: "site" as never })).toEqual([privateName]);
    expect(await names({ search: tag, owner: org.organizationId, contentSources: false })).toEqual([privateName, publicName].sort());
    expect(await names({ search: tag }, other.owner)).toEqual([publicName]);

    const page = (await org.owner.api.integrations.listIntegrations({ search: tag, limit: 1 })).data;
    expect(page.items).toHaveLength(1);
    const next = (await org.owner.api.integrations.listIntegrations({ search: tag, limit: 1, page: page.next!.page })).data;
    expect(next.items.map((item) => item.name)).not.toEqual(page.items.map((item) => item.name));

    expect((await call(stack, "GET", integrationPath(privateName), { token: other.owner.token })).status).toBe(404);
    const seen = (await other.owner.api.integrations.getIntegrationByName(publicName)).data;
    expect(seen).toMatchObject({ name: publicName, permissions: { admin: false }, owner: { id: org.organizationId, title: org.title } });
    expect(Object.values(seen.owner.permissions ?? {}).every((allowed) => allowed === false)).toBe(true);
    expect((await call(stack, "POST", integrationPath(publicName), { token: other.owner.token, json: manifest({}, other) })).status).toBeGreaterThanOrEqual(
      400,
    );
  });

  it("unpublishes: 205, its installations gone; 204 once there is nothing left", async () => {
    const name = uniqueName();
    await publish(name, { visibility: "public" as never });
    const installation = (await install(name)).data;
    await install(name, other);
    expect((await call(stack, "DELETE", integrationPath(name), { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "GET", integrationPath(name), { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `${integrationPath(name)}/installations/${installation.id}`, { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "DELETE", integrationPath(name), { token: org.owner.token })).status).toBe(204);
  });
});

describe("installations", () => {
  it("installs on an organization (201 with Location), updates its configuration (validated), lists by external id, issues a token and uninstalls", async () => {
    const name = uniqueName();
    await publish(name, {
      configurations: { account: { properties: { token: { type: "string" }, count: { type: "number" } }, required: ["token"] } } as never,
    });
    const installed = await install(name);
    const installation = installed.data;
    expect(installed.headers.get("location")).toBe(`${stack.baseUrl}${integrationPath(name)}/installations/${installation.id}`);
    expect(installation).toMatchObject({
      status: "pending",
      configuration: {},
      externalIds: [],
      target: { organization: org.organizationId },
      urls: { location: installed.headers.get("location"), publicEndpoint: `${installed.headers.get("location")}/public` },
    });
    // Installing again answers the same installation.
    expect((await install(name)).data.id).toBe(installation.id);

    const path = `${integrationPath(name)}/installations/${installation.id}`;
    const invalid = await call(stack, "PATCH", path, { token: org.owner.token, json: { configuration: { token: "t", count: "three" } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain("configuration.count");
    const updated = (
      await org.owner.api.integrations.updateIntegrationInstallation(name, installation.id, { configuration: { token: "t" }, externalIds: ["ext-1"] })
    ).data;
    expect(updated).toMatchObject({ id: installation.id, status: "active", configuration: { token: "t" }, externalIds: ["ext-1"] });
    expect((await org.owner.api.integrations.getIntegrationInstallationById(name, installation.id)).data).toEqual(updated);

    const listed = async (externalId?: string) =>
      (await org.owner.api.integrations.listIntegrationInstallations(name, { externalId })).data.items.map((item) => item.id);
    expect(await listed()).toEqual([installation.id]);
    expect(await listed("ext-1")).toEqual([installation.id]);
    expect(await listed("nope")).toEqual([]);
    const stranger = await createOrganization(stack);
    expect((await call(stack, "GET", path, { token: stranger.owner.token })).status).toBe(404);

    // GitBook's installation token: an API token acting for the installation.
    const { token } = (await org.owner.api.integrations.createIntegrationInstallationToken(name, installation.id)).data;
    expect(token).toBeTruthy();
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token })).status).toBe(200);

    expect((await call(stack, "DELETE", path, { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "DELETE", path, { token: org.owner.token })).status).toBe(204);
    expect((await call(stack, "GET", path, { token: org.owner.token })).status).toBe(404);
    // Its tokens are revoked with it.
    await eventually(async () => (await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token })).status === 401, 20_000);
  });

  it("installs on spaces and sites, and lists them with and without `extended`", async () => {
    const name = uniqueName();
    await publish(name, { configurations: { space: { properties: { mode: { type: "string", enum: ["a", "b"] } } } } as never });
    const installation = (await install(name)).data;
    const space = await createSpace(stack, org, { title: "Installed space" });
    const site = await createSite();
    const api = org.owner.api.integrations;

    const onSpace = await api.installIntegrationOnSpace(name, installation.id, { space: space.id });
    expect(onSpace.status).toBe(201);
    expect(onSpace.headers.get("location")).toBe(`${stack.baseUrl}${integrationPath(name)}/installations/${installation.id}/spaces/${space.id}`);
    expect(onSpace.data).toMatchObject({
      integration: name,
      installation: installation.id,
      space: space.id,
      status: "active",
      urls: { location: onSpace.headers.get("location") },
    });
    const onSite = await api.installIntegrationOnSite(name, installation.id, { siteId: site.id }, { extended: true });
    expect(onSite.status).toBe(201);
    expect(onSite.data.site).toMatchObject({ object: "site", id: site.id, title: "Integration site" });

    // Ids, or (extended) the objects themselves, fetched in one batch per page.
    expect((await api.listIntegrationSpaceInstallations(name)).data.items.map((item) => item.space)).toEqual([space.id]);
    const extendedSpaces = (await api.listIntegrationSpaceInstallations(name, { extended: true })).data.items;
    expect(extendedSpaces.map((item) => item.space)).toEqual([expect.objectContaining({ object: "space", id: space.id, title: "Installed space" })]);
    expect(
      (await api.listIntegrationInstallationSpaces(name, installation.id, { extended: true })).data.items.map((item) => (item.space as { id: string }).id),
    ).toEqual([space.id]);
    expect((await api.listIntegrationSiteInstallations(name)).data.items.map((item) => item.site)).toEqual([site.id]);
    expect(
      (await api.listIntegrationInstallationSites(name, installation.id, { extended: true })).data.items.map((item) => (item.site as { id: string }).id),
    ).toEqual([site.id]);
    expect((await api.getIntegrationSiteInstallation(name, installation.id, site.id, { extended: true })).data.site).toMatchObject({ id: site.id });
    expect((await api.getIntegrationSpaceInstallation(name, installation.id, space.id)).data.space).toBe(space.id);

    // Configuration is validated against what the integration declares for spaces; external ids filter.
    const spacePath = `${integrationPath(name)}/installations/${installation.id}/spaces/${space.id}`;
    const invalid = await call(stack, "PATCH", spacePath, { token: org.owner.token, json: { configuration: { mode: "c" } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain("configuration.mode");
    const updated = (
      await api.updateIntegrationSpaceInstallation(name, installation.id, space.id, { configuration: { mode: "b" }, externalIds: ["space-ext"] })
    ).data;
    expect(updated).toMatchObject({ configuration: { mode: "b" }, externalIds: ["space-ext"] });
    expect((await api.listIntegrationSpaceInstallations(name, { externalId: "space-ext" })).data.items).toHaveLength(1);
    expect((await api.listIntegrationSpaceInstallations(name, { externalId: "nope" })).data.items).toHaveLength(0);
    expect((await api.updateIntegrationSiteInstallation(name, installation.id, site.id, { externalIds: ["site-ext"] })).data.externalIds).toEqual(["site-ext"]);
    expect((await api.getIntegrationInstallationById(name, installation.id)).data.spaces).toBe(1);

    // Another organization's space cannot be installed on; uninstalling answers 205, then 204.
    const foreign = await createSpace(stack, other);
    expect(
      (await call(stack, "POST", `${integrationPath(name)}/installations/${installation.id}/spaces`, { token: org.owner.token, json: { space: foreign.id } }))
        .status,
    ).toBe(404);
    expect((await call(stack, "DELETE", spacePath, { token: org.owner.token })).status).toBe(205);
    expect((await call(stack, "DELETE", spacePath, { token: org.owner.token })).status).toBe(204);
    const sitePath = `${integrationPath(name)}/installations/${installation.id}/sites/${site.id}`;
    expect((await call(stack, "DELETE", sitePath, { token: org.owner.token })).status).toBe(205);
    expect((await api.listIntegrationSiteInstallations(name, { extended: true })).data.items).toEqual([]);
  });

  it("records an installation_setup event once delivered, with what its handling logged", async () => {
    const name = uniqueName();
    await publish(name);
    const installation = (await install(name)).data;
    const event = await eventually(async () => {
      const { items } = (await org.owner.api.integrations.listIntegrationEvents(name)).data;
      return items.find((item) => item.payload.type === "installation_setup");
    }, 20_000);
    expect(event).toMatchObject({
      installationId: installation.id,
      status: "success",
      payload: { type: "installation_setup", installationId: installation.id },
    });
    const detail = (await org.owner.api.integrations.getIntegrationEvent(name, event.id)).data;
    expect(detail.event).toEqual(event);
    expect(Array.isArray(detail.trace?.logs)).toBe(true);
    expect((await call(stack, "GET", `${integrationPath(name)}/events/${randomUUID()}`, { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `${integrationPath(name)}/events`, { token: other.owner.token })).status).toBe(404);
  });
});

describe("development and rendering", () => {
  it("turns development mode on (204) and off (205), for the owner's admins only", async () => {
    const name = uniqueName();
    await publish(name);
    const path = `${integrationPath(name)}/dev`;
    expect((await org.owner.api.integrations.setIntegrationDevelopmentMode(name, { tunnelUrl: "http://127.0.0.1:9/tunnel", all: false })).status).toBe(204);
    expect((await org.owner.api.integrations.disableIntegrationDevelopmentMode(name)).status).toBe(205);
    expect((await call(stack, "PUT", path, { token: org.owner.token, json: { all: true } })).body.error.message).toBe("tunnelUrl: is required");
    const editor = await createMember(stack, org, { role: "edit" });
    expect((await call(stack, "PUT", path, { token: editor.token, json: { tunnelUrl: "http://127.0.0.1:9/" } })).status).toBe(403);
    expect((await call(stack, "PUT", path, { token: other.owner.token, json: { tunnelUrl: "http://127.0.0.1:9/" } })).status).toBe(404);
  });

  it("renders a component with POST, and with GET from GitBook's lz-string compressed request", async () => {
    const name = uniqueName();
    await publish(name);
    await install(name);
    const space = await createSpace(stack, org);
    // Props hold objects only: GitBook's PlainObject schema makes any other value match two of its `oneOf`.
    const request: RenderIntegrationUI = {
      componentId: "card",
      props: { options: { size: {} } },
      context: { type: "document", spaceId: space.id, editable: true, theme: "light" } as never,
    };
    const expected = {
      type: "element",
      state: {},
      props: { options: { size: {} } },
      element: { type: "block", children: [{ type: "button", label: "Hi", onPress: { action: "x" } }] },
    };

    const posted = await org.owner.api.integrations.renderIntegrationUiWithPost(name, request);
    expect(posted.data).toEqual(expected);
    expect(posted.headers.get("cache-control")).toBe("no-store");
    const got = await org.owner.api.integrations.renderIntegrationUiWithGet(name, {
      request: lzString.compressToEncodedURIComponent(JSON.stringify({ ...request, state: { a: 1 } })),
    });
    expect(got.data).toEqual({ ...expected, state: { a: 1 } });

    const path = `${integrationPath(name)}/render`;
    const malformed = await call(stack, "GET", `${path}?request=${encodeURIComponent("definitely not lz")}`, { token: org.owner.token });
    expect([malformed.status, malformed.body.error.message]).toEqual([400, "request: must be JSON compressed with lz-string (compressToEncodedURIComponent)"]);
    const incomplete = await call(
      stack,
      "GET",
      `${path}?request=${encodeURIComponent(lzString.compressToEncodedURIComponent(JSON.stringify({ props: {}, context: {} })))}`,
      { token: org.owner.token },
    );
    expect([incomplete.status, incomplete.body.error.message]).toEqual([400, "request.componentId: is required"]);
    expect((await call(stack, "POST", path, { token: org.owner.token, json: { componentId: "card", context: {} } })).body.error.message).toBe(
      "props: is required",
    );
  });
});

describe("without a token", () => {
  it("serves an installation's public endpoint: any path below it, its query and body, the script's answer as it is", async () => {
    const name = uniqueName();
    await publish(name, { script: ECHO_SCRIPT });
    const installation = (await install(name)).data;
    // Once the installation is set up: its first script call creates the installation's principal.
    await eventually(
      async () => (await org.owner.api.integrations.listIntegrationEvents(name)).data.items.some((item) => item.payload.type === "installation_setup"),
      20_000,
    );
    const endpoint = installation.urls.publicEndpoint;
    // The endpoint itself is its path "/".
    for (const [method, url, seen, body] of [
      ["POST", `${endpoint}/webhook?x=1&y=%20z`, `${endpoint}/webhook?x=1&y=%20z`, "ping"],
      ["GET", endpoint, `${endpoint}/`, ""],
      ["PUT", `${endpoint}/a/b%2Fc/`, `${endpoint}/a/b%2Fc/`, JSON.stringify({ a: 1 })],
    ] as const) {
      const response = await fetch(url, {
        method,
        body: method === "GET" ? undefined : body,
        headers: { "x-custom": "kept", authorization: `Bearer ${org.owner.token}`, cookie: "session=secret" },
      });
      expect(response.status).toBe(202);
      expect(response.headers.get("x-echo")).toBe("yes");
      // Its own policy and framing (none here: a webframe is embedded by other pages), not the API's
      // for its JSON answers; but sandboxed, an opaque origin whose requests carry no session cookie.
      expect(response.headers.get("content-security-policy")).toBe(SANDBOX);
      expect(response.headers.get("x-frame-options")).toBeNull();
      // The script sees the URL as sent, the method (lower-case in GitBook's FetchEvent), the body and the headers but the credentials.
      expect(await response.json()).toEqual({ url: seen, method: method.toLowerCase(), authorization: null, cookie: null, custom: "kept", body });
    }
    const unknown = await call(stack, "POST", `${integrationPath(name)}/installations/${randomUUID()}/public/webhook`, {
      rawBody: "x",
      notInOpenApi: "an installation's public endpoint (Imprint's)",
    });
    expect(unknown.status).toBe(404);
    const tooLarge = await fetch(`${endpoint}/upload`, { method: "POST", body: Buffer.alloc(1024 * 1024 + 1) });
    expect(tooLarge.status).toBe(413);
  });

  it("serves the integration's own public endpoint (its urls.publicEndpoint): the script's fetch handler, no installation", async () => {
    const name = uniqueName();
    // The integration's own policy, one that would give the page the API's origin back.
    const ownPolicy = "sandbox allow-same-origin allow-scripts; default-src 'self'";
    const integration = await publish(name, { script: ECHO_SCRIPT, contentSecurityPolicy: ownPolicy });
    const endpoint = integration.urls.publicEndpoint;
    expect(endpoint).toBe(`${stack.baseUrl}${integrationPath(name)}/public`);
    const response = await fetch(`${endpoint}/oauth?code=1`, {
      method: "POST",
      body: "ping",
      headers: { "x-custom": "kept", authorization: `Bearer ${org.owner.token}` },
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-echo")).toBe("yes");
    // The integration's policy is kept, and the sandbox is a policy of its own beside it (two header
    // values, both enforced): inside the integration's policy, a second sandbox directive would be ignored.
    expect(response.headers.get("content-security-policy")).toBe(`${ownPolicy}, ${SANDBOX}`);
    expect(await response.json()).toEqual({ url: `${endpoint}/oauth?code=1`, method: "post", authorization: null, cookie: null, custom: "kept", body: "ping" });
    const unknown = await call(stack, "GET", `${integrationPath(uniqueName("none"))}/public/oauth`, {
      notInOpenApi: "an integration's public endpoint (Imprint's)",
    });
    expect(unknown.status).toBe(404);
    const tooLarge = await fetch(`${endpoint}/upload`, { method: "POST", body: Buffer.alloc(1024 * 1024 + 1) });
    expect(tooLarge.status).toBe(413);
  });

  it("serves the script a site installation injects", async () => {
    const name = uniqueName();
    await publish(name, { scopes: ["site:script:inject"] as never });
    const installation = (await install(name)).data;
    const site = await createSite();
    await org.owner.api.integrations.installIntegrationOnSite(name, installation.id, { siteId: site.id });
    const script = await fetch(`${stack.baseUrl}${integrationPath(name)}/installations/${installation.id}/sites/${site.id}/script.js`);
    expect([script.status, await script.text()]).toEqual([200, "OK"]);
    // Included by a site's pages, a script's policy does not apply; opened on its own, it is sandboxed too.
    expect(script.headers.get("content-security-policy")).toBe(SANDBOX);
    const elsewhere = await createSite();
    const missing = await call(stack, "GET", `${integrationPath(name)}/installations/${installation.id}/sites/${elsewhere.id}/script.js`, {
      notInOpenApi: "a site's injected script (Imprint's)",
    });
    expect(missing.status).toBe(404);
  });
});

describe("tasks", () => {
  it("queues tasks for the integration's own token only (403 for its owner's admin, 404 for another organization), refusing bad input naming the field", async () => {
    const name = uniqueName();
    await publish(name);
    const tasks = `${integrationPath(name)}/tasks`;
    const refused = await call(stack, "POST", tasks, { token: org.owner.token, json: { task: { type: "sync" } } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("integration token");
    expect((await call(stack, "POST", tasks, { token: other.owner.token, json: { task: {} } })).status).toBe(404);
    expect((await call(stack, "POST", `${integrationPath(uniqueName("none"))}/tasks`, { token: org.owner.token, json: { task: {} } })).status).toBe(404);
    for (const [json, field] of [
      [{}, "task"],
      [{ task: "sync" }, "task"],
      [{ task: {}, schedule: "soon" }, "schedule"],
      [{ task: {}, schedule: 86_401 }, "schedule"],
      [{ task: {}, schedule: -1 }, "schedule"],
      [{ task: { text: "x".repeat(64 * 1024) } }, "task"],
    ] as const) {
      const bad = await call(stack, "POST", tasks, { token: org.owner.token, json });
      expect([bad.status, bad.body.error.message]).toEqual([400, expect.stringContaining(`${field}:`)]);
    }
  });
});
