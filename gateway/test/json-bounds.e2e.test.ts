import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "@imprint/runtime/core";
import { failure } from "@imprint/runtime/testing";
import type { Route } from "../src/route.js";
import { gatewayRoutes } from "../src/routes/index.js";
import { PUBLISH_BODY_LIMIT_BYTES } from "../src/routes/integrations.js";
import type { UpstreamAddresses, UpstreamClients } from "../src/upstreams.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Depth and size bounds of free-form JSON. Every body the gateway reads nests at most
 * MAX_JSON_DEPTH levels (400 `body: nesting deeper than N` past it, on every route with a body,
 * whatever its schema) and holds at most BODY_LIMIT_BYTES (413); the services bound the JSON text
 * fields of their gRPC requests the same way for other callers. Before, a customization nested
 * 5,000 levels deep answered 500: JSON.stringify overflows its stack a few thousand levels down.
 */

const BODY_LIMIT_BYTES = 256 * 1024;
let stack: TestStack;
let org: TestOrganization;
const fixture = { siteId: "", siteSpaceId: "", integrationName: "", installationId: "", spaceId: "", changeRequestId: "" };

/** JSON text of objects nested `depth` levels deep (text, since JSON.stringify itself overflows on deep values). */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const TOO_DEEP = `body: nesting deeper than ${MAX_JSON_DEPTH}`;

async function send(method: string, path: string, body: string) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${org.owner.token}`, "content-type": "application/json" },
    body,
  });
  const text = await response.text();
  return { status: response.status, message: text ? ((JSON.parse(text) as { error?: { message?: string } }).error?.message ?? null) : null };
}

/**
 * Routes whose body holds a free-form JSON value, with a body whose `@` is that value and how many
 * containers enclose it (so a value nested MAX_JSON_DEPTH - outer levels makes a body exactly at the
 * bound), and the route's own body limit where it has one.
 */
const FREE_FORM: { method: string; path: () => string; template: string; outer: number; limitBytes?: number }[] = [
  { method: "PUT", path: () => `/v1/orgs/${org.organizationId}/sites/${fixture.siteId}/customization`, template: '{"title":"Deep","styling":@}', outer: 1 },
  {
    method: "PATCH",
    path: () => `/v1/orgs/${org.organizationId}/sites/${fixture.siteId}/site-spaces/${fixture.siteSpaceId}/customization`,
    template: '{"styling":@}',
    outer: 1,
  },
  { method: "PUT", path: () => `/v1/orgs/${org.organizationId}/sites/${fixture.siteId}/adaptive-schema`, template: '{"jsonSchema":@}', outer: 1 },
  {
    method: "PATCH",
    path: () => `/v1/integrations/${fixture.integrationName}/installations/${fixture.installationId}`,
    template: '{"configuration":@}',
    outer: 1,
  },
  {
    method: "PATCH",
    path: () => `/v1/integrations/${fixture.integrationName}/installations/${fixture.installationId}/spaces/${fixture.spaceId}`,
    template: '{"configuration":@}',
    outer: 1,
  },
  {
    method: "POST",
    path: () => `/v1/integrations/${fixture.integrationName}/render`,
    template: `{"componentId":"block","context":{"type":"document","spaceId":"${randomUUID()}","editable":true,"theme":"light"},"props":@}`,
    outer: 1,
  },
  {
    method: "POST",
    path: () => `/v1/integrations/${fixture.integrationName}`,
    template: '{"organization":"@org","title":"Deep one","description":"Deep","scopes":[],"script":"export default {}","configurations":@}',
    outer: 1,
    limitBytes: PUBLISH_BODY_LIMIT_BYTES,
  },
  { method: "POST", path: () => `/v1/integrations/${fixture.integrationName}/tasks`, template: '{"task":@}', outer: 1 },
  { method: "POST", path: () => `/v1/spaces/${fixture.spaceId}/change-requests`, template: '{"subject":"Deep","template":@}', outer: 1 },
  { method: "PATCH", path: () => `/v1/spaces/${fixture.spaceId}/change-requests/${fixture.changeRequestId}`, template: '{"links":@}', outer: 1 },
  {
    method: "POST",
    path: () => `/v1/spaces/${fixture.spaceId}/change-requests/${fixture.changeRequestId}/content`,
    template: '{"changes":[{"operation":"insert_page","title":"Deep","document":{"document":{"object":"document","nodes":[@]}}}]}',
    outer: 6,
  },
];
const bodyOf = (route: (typeof FREE_FORM)[number], value: string) => route.template.replace("@org", org.organizationId).replace("@", value);

/** Stands in for every upstream client: route factories only keep references to them. */
const detached: unknown = new Proxy(() => undefined, {
  get: () => detached,
  apply: () => {
    throw new Error("routes are built here to be listed, not run");
  },
});

/** Every route of the gateway that reads a JSON body, its path parameters filled with ids that name nothing. */
function bodyRoutes(): { method: string; path: string }[] {
  const { api } = gatewayRoutes({
    upstreams: detached as UpstreamClients,
    upstreamAddresses: detached as UpstreamAddresses,
    urls: { api: "http://imprint.invalid", app: "http://imprint.invalid", reader: "http://imprint.invalid/sites" },
  });
  return api
    .filter((route: Route) => ["POST", "PUT", "PATCH"].includes(route.method))
    .map((route) => ({ method: route.method, path: route.path.replace(/:\w+/g, () => randomUUID()).replace(/\*\w+/, "x") }));
}

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } });
  org = await createOrganization(stack);
  const owner = { token: org.owner.token };
  const space = await createSpace(stack, org);
  const site = await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites`, { ...owner, json: { title: "Deep site", spaces: [space.id] } });
  const siteSpaces = await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${site.body.id}/site-spaces`, owner);
  const integrationName = `deep-${randomUUID().slice(0, 8)}`;
  const published = await call(stack, "POST", `/v1/integrations/${integrationName}`, {
    ...owner,
    json: {
      organization: org.organizationId,
      title: "Deep",
      description: "Deep JSON",
      scopes: [],
      script: "export default { fetch() { return new Response('OK'); } }",
    },
  });
  const installation = await call(stack, "POST", `/v1/integrations/${integrationName}/installations`, { ...owner, json: { organization: org.organizationId } });
  const onSpace = await call(stack, "POST", `/v1/integrations/${integrationName}/installations/${installation.body.id}/spaces`, {
    ...owner,
    json: { space: space.id },
  });
  const changeRequest = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { ...owner, json: { subject: "Deep" } });
  for (const response of [site, siteSpaces, published, installation, onSpace, changeRequest]) expect(response.status).toBeLessThan(300);
  Object.assign(fixture, {
    siteId: site.body.id as string,
    siteSpaceId: siteSpaces.body.items[0].id as string,
    integrationName,
    installationId: installation.body.id as string,
    spaceId: space.id,
    changeRequestId: changeRequest.body.id as string,
  });
}, 120_000);
afterAll(() => stack?.stop());

describe("request bodies nested past the bound", () => {
  it("are refused with 400 on every route that reads a JSON body, whatever its schema", async () => {
    const answers = new Map<string, string>();
    for (const route of bodyRoutes()) {
      for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 40_000]) {
        const answer = await send(route.method, route.path, nested(depth));
        answers.set(`${route.method} ${route.path} ${depth}`, `${answer.status} ${answer.message}`);
      }
    }
    expect([...answers].filter(([, answer]) => answer !== `400 ${TOO_DEEP}`)).toEqual([]);
    expect(answers.size).toBeGreaterThan(150);
  });

  it("in a free-form field: exactly at the bound the request reaches its checks; one level deeper, or thousands, is 400; past BODY_LIMIT_BYTES 413", async () => {
    for (const route of FREE_FORM) {
      const label = `${route.method} ${route.path()}`;
      const atBound = await send(route.method, route.path(), bodyOf(route, nested(MAX_JSON_DEPTH - route.outer)));
      expect([label, atBound.status < 500, atBound.message]).toEqual([label, true, expect.not.stringContaining("nesting deeper")]);
      for (const depth of [MAX_JSON_DEPTH - route.outer + 1, 5_000]) {
        const refused = await send(route.method, route.path(), bodyOf(route, nested(depth)));
        expect([label, depth, refused.status, refused.message]).toEqual([label, depth, 400, TOO_DEEP]);
      }
      const large = await send(route.method, route.path(), bodyOf(route, JSON.stringify({ text: "x".repeat(route.limitBytes ?? BODY_LIMIT_BYTES) })));
      expect([label, large.status, large.message]).toEqual([label, 413, expect.any(String)]);
    }
  });
});

describe("JSON text fields of gRPC requests nested past the bound", () => {
  it("are refused by the publishing service (customization, override, adaptive schema) for callers other than the gateway", async () => {
    const caller = org.owner.caller;
    const { siteId, siteSpaceId } = fixture;
    const organizationId = org.organizationId;
    const calls: [string, (json: string) => Promise<unknown>][] = [
      ["body", (json) => stack.clients.publishing.customization.updateSiteCustomization({ caller, organizationId, siteId, customizationJson: json })],
      [
        "body",
        (json) => stack.clients.publishing.customization.overrideSiteSpaceCustomization({ caller, organizationId, siteId, siteSpaceId, overrideJson: json }),
      ],
      ["jsonSchema", (json) => stack.clients.publishing.adaptiveSchema.updateSiteAdaptiveSchema({ caller, organizationId, siteId, jsonSchema: json })],
    ];
    for (const [field, send] of calls) {
      for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
        expect(await failure(send(nested(depth)))).toMatchObject({ code: "invalid_argument", message: `${field}: nesting deeper than ${MAX_JSON_DEPTH}` });
      }
      const atBound = await failure(send(`{"styling":${nested(MAX_JSON_DEPTH - 1)}}`));
      expect(atBound).toMatchObject({ code: "invalid_argument", message: expect.not.stringContaining("nesting deeper") });
    }
  });
});
