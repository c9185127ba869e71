import { Router } from "@koa/router";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { indexRouteMatching } from "../src/indexed-router.js";

/**
 * The gateway's router tests only the routes an index says can match: it must answer every path
 * exactly as @koa/router itself does (the same layers, in the same order), whatever the routes.
 */
const ROUTES: [method: string, path: string][] = [
  ["GET", "/healthz"],
  ["GET", "/v1/"],
  ["GET", "/v1/orgs"],
  ["POST", "/v1/orgs"],
  ["GET", "/v1/orgs/:organizationId"],
  ["PATCH", "/v1/orgs/:organizationId"],
  ["GET", "/v1/orgs/:organizationId/members"],
  ["GET", "/v1/orgs/:organizationId/members/:userId"],
  ["GET", "/v1/orgs/:organizationId/sites/:siteId/published"],
  ["GET", "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId"],
  ["GET", "/v1/orgs/search"],
  ["GET", "/v1/spaces/:spaceId/content/path/*pagePath"],
  ["GET", "/v1/spaces/:spaceId/content/page/:pageId"],
  ["GET", "/v1/spaces/:spaceId"],
  ["GET", "/v1/integrations/:integrationName/public/*path"],
  ["GET", "/v1/files/:fileId.pdf"],
  ["GET", "/v1/users{/:userId}"],
  ["GET", "/v1/Mixed/Case"],
  ["DELETE", "/v1/orgs/:organizationId/members/:userId"],
];

const SEGMENTS = [
  "",
  "v1",
  "V1",
  "orgs",
  "ORGS",
  "spaces",
  "members",
  "sites",
  "published",
  "search",
  "content",
  "path",
  "page",
  "abc",
  "x.pdf",
  "public",
  "mixed",
  "case",
  "users",
  "%2F",
  "healthz",
];

function routers() {
  const plain = new Router();
  const indexed = indexRouteMatching(new Router());
  for (const [method, path] of ROUTES) {
    const handler = () => {};
    plain.register(path, [method], handler);
    indexed.register(path, [method], handler);
  }
  return { plain, indexed };
}

const summary = (router: Router, path: string, method: string) => {
  const result = router.match(path, method);
  const at = (layer: (typeof result.path)[number]) => router.stack.indexOf(layer);
  return { path: result.path.map(at), pathAndMethod: result.pathAndMethod.map(at), route: result.route };
};

describe("the gateway's indexed router", () => {
  it("matches every path as @koa/router does: the same routes in the same order", () => {
    const { plain, indexed } = routers();
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 7 }),
        fc.boolean(),
        fc.constantFrom("GET", "POST", "PATCH", "DELETE", "OPTIONS"),
        (segments, trailingSlash, method) => {
          const path = `/${segments.join("/")}${trailingSlash ? "/" : ""}`;
          expect(summary(indexed, path, method)).toEqual(summary(plain, path, method));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it("finds the routes under each of its own paths, and follows routes added after the first request", () => {
    const { plain, indexed } = routers();
    const examples = [
      "/v1/orgs/o1",
      "/v1/orgs/o1/members/u1",
      "/v1/spaces/s1/content/path/a/b/c",
      "/v1/integrations/i/public/x/y",
      "/V1/ORGS/o1/",
      "/v1/files/f1.pdf",
      "/v1/users",
      "/v1/mixed/case",
    ];
    for (const path of examples) {
      expect(summary(indexed, path, "GET")).toEqual(summary(plain, path, "GET"));
      expect(summary(indexed, path, "GET").path.length).toBeGreaterThan(0);
    }
    for (const router of [plain, indexed]) router.register("/v1/orgs/:organizationId/teams", ["GET"], () => {});
    expect(summary(indexed, "/v1/orgs/o1/teams", "GET")).toEqual(summary(plain, "/v1/orgs/o1/teams", "GET"));
    expect(summary(indexed, "/v1/orgs/o1/teams", "GET").route).toBe(true);
  });
});
