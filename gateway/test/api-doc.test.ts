import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_DOC_FILE, buildApiDoc, loadApiDocInputs, STALE_MESSAGE, type Differences } from "../../scripts/lib/api-doc.mjs";
import { routeTable } from "../src/routes/index.js";

// docs/api.md is generated from the route table (npm run docs:api); this is the check that keeps
// the committed file and the hand-kept differences in step with the routes.
const inputs = loadApiDocInputs();
const routes = routeTable();

describe("docs/api.md", () => {
  it("is what npm run docs:api generates from the current routes", () => {
    const { markdown } = buildApiDoc({ ...inputs, routes });
    const committed = readFileSync(API_DOC_FILE, "utf8").split("\n");
    const generated = markdown.split("\n");
    const line = generated.findIndex((text, index) => text !== committed[index]);
    const where = line === -1 ? generated.length : line;
    expect(committed.length === generated.length && line === -1, `${STALE_MESSAGE} (line ${where + 1} would be: ${generated[where] ?? "<end of file>"})`).toBe(
      true,
    );
  });

  it("says why each operation left out is not served", () => {
    const { markdown, counts } = buildApiDoc({ ...inputs, routes });
    expect(counts.leftOut).toBe(Object.keys(inputs.differences.leftOut).length);
    const rows = markdown.split("\n");
    for (const [id, reason] of Object.entries(inputs.differences.leftOut)) {
      const row = rows.find((line) => line.startsWith(`| \`${id}\` |`));
      expect(row, id).toMatch(/\| left out \| [^|]+/);
      expect(row, id).toContain(reason.replace(/\|/g, "\\|"));
    }
  });

  it("lists every route once: as the GitBook operation it serves or as an extension", () => {
    const { counts } = buildApiDoc({ ...inputs, routes });
    const extensions = Object.keys(inputs.differences.extensions).length;
    expect(counts.supported + counts.different + extensions).toBe(routes.length);
  });
});

describe("api-differences.json", () => {
  const build =
    (patch: Partial<Differences>, table = routes) =>
    () =>
      buildApiDoc({ ...inputs, routes: table, differences: { ...inputs.differences, ...patch } });

  it("may name only operations that exist, and differences only of routed ones", () => {
    expect(build({ different: { ...inputs.differences.different, notAnOperation: "x" } })).toThrow(/notAnOperation is not an operation/);
    expect(build({ different: { ...inputs.differences.different, listOrganizationStyleguides: "x" } })).toThrow(/listOrganizationStyleguides is not routed/);
    expect(build({ notes: { ...inputs.differences.notes, notAnOperation: "x" } })).toThrow(/notAnOperation is not an operation/);
    expect(build({ leftOut: { ...inputs.differences.leftOut, notAnOperation: "x" } })).toThrow(/notAnOperation is not an operation/);
    expect(build({ leftOut: { ...inputs.differences.leftOut, getSpaceById: "x" } })).toThrow(/getSpaceById is routed/);
    expect(build({ resources: [...inputs.differences.resources, "no-such-tag"] })).toThrow(/no-such-tag is not a tag/);
  });

  it("must say what every route without a GitBook operation is, and only those", () => {
    const withNewRoute = [...routes, { method: "GET" as const, path: "/v1/spaces/:spaceId/whatever", authenticated: true }];
    expect(build({}, withNewRoute)).toThrow(/"GET \/v1\/spaces\/:spaceId\/whatever" matches no GitBook operation/);
    const withoutTransfer = routes.filter((r) => r.path !== "/v1/spaces/:spaceId/transfer");
    expect(build({}, withoutTransfer)).toThrow(/"POST \/v1\/spaces\/:spaceId\/transfer" is not a gateway route/);
  });
});

describe("routeTable", () => {
  it("lists every mounted route without upstreams, unauthenticated ones first", () => {
    expect(routes.filter((r) => !r.authenticated).map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /healthz",
      "GET /readyz",
      "GET /healthz/upstreams",
      "GET /v1/files/:fileId/download",
      "GET /v1/exports/:exportId/download",
      "GET /v1/orgs/:organizationId/sso",
      "GET /v1/sso/saml/:providerId/start",
      "POST /v1/sso/saml/:providerId/acs",
      "POST /v1/auth/password",
      "POST /v1/auth/password-reset",
      "POST /v1/auth/join",
      "GET /v1/auth/oidc/:providerId/start",
      "GET /v1/auth/oidc/callback",
      "GET /v1/integrations/:integrationName/assets/:assetId",
      "GET /v1/integrations/:integrationName/installations/:installationId/public",
      "POST /v1/integrations/:integrationName/installations/:installationId/public",
      "PUT /v1/integrations/:integrationName/installations/:installationId/public",
      "PATCH /v1/integrations/:integrationName/installations/:installationId/public",
      "DELETE /v1/integrations/:integrationName/installations/:installationId/public",
      "GET /v1/integrations/:integrationName/installations/:installationId/public/*path",
      "POST /v1/integrations/:integrationName/installations/:installationId/public/*path",
      "PUT /v1/integrations/:integrationName/installations/:installationId/public/*path",
      "PATCH /v1/integrations/:integrationName/installations/:installationId/public/*path",
      "DELETE /v1/integrations/:integrationName/installations/:installationId/public/*path",
      "GET /v1/integrations/:integrationName/public",
      "POST /v1/integrations/:integrationName/public",
      "PUT /v1/integrations/:integrationName/public",
      "PATCH /v1/integrations/:integrationName/public",
      "DELETE /v1/integrations/:integrationName/public",
      "GET /v1/integrations/:integrationName/public/*path",
      "POST /v1/integrations/:integrationName/public/*path",
      "PUT /v1/integrations/:integrationName/public/*path",
      "PATCH /v1/integrations/:integrationName/public/*path",
      "DELETE /v1/integrations/:integrationName/public/*path",
      "GET /v1/integrations/:integrationName/installations/:installationId/sites/:siteId/script.js",
      "POST /v1/spaces/:spaceId/git/sync/webhook",
    ]);
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
  });
});
