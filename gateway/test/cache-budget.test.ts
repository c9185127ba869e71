import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Page, PageType } from "@imprint/proto/content/v1/revisions";
import { testLogger } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { TokenAuthenticator } from "../src/auth.js";
import { CacheBudget } from "@imprint/runtime/core";
import { PageTokenSigner } from "../src/pagination.js";
import type { UpstreamAddresses, UpstreamClients } from "../src/upstreams.js";

describe("CacheBudget", () => {
  it("drops the least recently used entries of every cache to stay within one budget", () => {
    const budget = new CacheBudget(100);
    const a = budget.cache<string>("a");
    const b = budget.cache<string>("b");
    a.set("1", "a1", 40);
    b.set("1", "b1", 40);
    expect(budget.usedBytes).toBe(80);
    a.get("1"); // a1 is now more recent than b1
    b.set("2", "b2", 40);
    expect(budget.usedBytes).toBe(80);
    expect(b.get("1")).toBeUndefined();
    expect(a.get("1")).toBe("a1");
    // b2 is now the least recent: a's insert drops it from the other cache.
    a.set("2", "a2", 60);
    expect(budget.usedBytes).toBe(100);
    expect([a.get("1"), b.get("2"), a.get("2")]).toEqual(["a1", undefined, "a2"]);
    expect(b.size).toBe(0);
  });

  it("replaces an entry's charge, keeps nothing larger than the budget, refuses a second cache of one name", () => {
    const budget = new CacheBudget(100);
    const a = budget.cache<string>("a");
    a.set("k", "small", 10);
    a.set("k", "larger", 30);
    expect(budget.usedBytes).toBe(30);
    a.set("huge", "x", 101);
    expect(a.get("huge")).toBeUndefined();
    expect(budget.usedBytes).toBe(30);
    a.delete("k");
    expect(budget.usedBytes).toBe(0);
    expect(() => budget.cache("a")).toThrow(/already draws on this budget/);
  });
});

// The page-tree caches of both content prefixes and the token cache, through the real routes: the
// budget holds for all of them together, not per prefix.
describe("the gateway's caches share one budget across route prefixes", () => {
  const TREE_PAGES = 40;
  const TITLE = "t".repeat(1_000);
  const budget = new CacheBudget(200_000);
  const calls: { spaceId: string; changeRequestId: string; knownRevisionId: string }[] = [];
  let server: Server;
  let baseUrl: string;

  const tree = () =>
    Array.from({ length: TREE_PAGES }, (_, index) =>
      Page.fromPartial({ id: `p${index}`, title: TITLE, type: PageType.PAGE_TYPE_GROUP, slug: `p${index}`, path: `p${index}` }),
    );

  beforeAll(async () => {
    const revisions = {
      listPages: (request: { ref: { spaceId: string; changeRequestId: string }; knownRevisionId?: string }) => {
        calls.push({ spaceId: request.ref.spaceId, changeRequestId: request.ref.changeRequestId, knownRevisionId: request.knownRevisionId ?? "" });
        const revisionId = `rev-${request.ref.spaceId}-${request.ref.changeRequestId}`;
        if (request.knownRevisionId === revisionId) return Promise.resolve({ pages: [], revisionId, organizationId: "org", notModified: true });
        return Promise.resolve({ pages: tree(), revisionId, organizationId: "org", notModified: false });
      },
    };
    // Other route factories only keep references to their clients; none of them is called here.
    const detached: unknown = new Proxy(() => undefined, { get: () => detached });
    const content = new Proxy({}, { get: (_, name) => (name === "revisions" ? revisions : detached) });
    const upstreams = new Proxy({}, { get: (_, name) => (name === "content" ? content : detached) }) as UpstreamClients;
    const principal = { caller: { userId: "u", tokenId: "t" }, user: { id: "u", displayName: "", email: "", photoUrl: "" } };
    const authenticator = new TokenAuthenticator(() => Promise.resolve({ principal }), { ttlMs: 60_000, budget });
    const app = createApp({
      upstreams,
      upstreamAddresses: {} as UpstreamAddresses,
      authenticator,
      urls: { api: "http://imprint.test", app: "http://imprint.test", reader: "http://imprint.test/sites" },
      bodyLimitBytes: 1024,
      pageTokens: PageTokenSigner.ephemeral(),
      caches: budget,
      logger: testLogger("gateway"),
    });
    const handle = app.callback();
    server = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const listPages = async (path: string) => {
    const response = await fetch(`${baseUrl}${path}/content/pages`, { headers: { authorization: "Bearer imp_test_token" } });
    expect(response.status).toBe(200);
    return (await response.arrayBuffer()).byteLength;
  };

  it("keeps the total of both prefixes' page trees (and the tokens) within the budget", async () => {
    const treeBytes = await listPages("/v1/spaces/s0");
    // The budget holds four trees (and a token), however they are spread over the two prefixes.
    expect(treeBytes * 4).toBeLessThan(budget.maxBytes);
    expect(treeBytes * 5).toBeGreaterThan(budget.maxBytes);
    for (let index = 1; index < 6; index++) {
      await listPages(`/v1/spaces/s${index}`);
      await listPages(`/v1/spaces/s${index}/change-requests/cr${index}`);
      expect(budget.usedBytes).toBeLessThanOrEqual(budget.maxBytes);
    }
    // Ten trees were answered through two prefixes; only the last four fit, whatever their prefix.
    expect(budget.usedBytes).toBeGreaterThan(treeBytes * 4);
    calls.length = 0;
    await listPages("/v1/spaces/s5/change-requests/cr5");
    await listPages("/v1/spaces/s5");
    await listPages("/v1/spaces/s4/change-requests/cr4");
    await listPages("/v1/spaces/s4");
    await listPages("/v1/spaces/s1");
    expect(calls.map((call) => call.knownRevisionId !== "")).toEqual([true, true, true, true, false]);
    expect(budget.usedBytes).toBeLessThanOrEqual(budget.maxBytes);
  });
});
