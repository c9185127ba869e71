import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import { commitDraftWork, commitEdits, startEditingStack, stopEditingStack, type EditingClient } from "./support/editing.js";
import type { TestStack } from "./support/stack.js";

/**
 * searchSpaceContent and searchOrganizationContent end to end: content written through the
 * editing API or imported through the gateway, indexed by the content service from its events,
 * searched through the gateway; every response is checked against GitBook's OpenAPI. A site's
 * search prewarmed (prewarmSiteSearch) holds its spaces' last commits when it answers.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
  org = await createOrganization(stack);
});
afterAll(() => stopEditingStack(stack, editing));

/** A made-up word no other test uses: ten letters a to p after a readable label. */
function word(label: string): string {
  return (
    label +
    randomUUID()
      .replace(/-/g, "")
      .slice(0, 10)
      .replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 16)))
  );
}

async function commitPages(spaceId: string, pages: { title: string; markdown: string; parent?: string }[]): Promise<string[]> {
  const ids: string[] = [];
  await commitDraftWork(editing, { userId: org.owner.userId, spaceId }, async (draftId, caller) => {
    for (const page of pages) {
      const created = await editing.createPage({
        caller,
        draftId,
        page: CreatePageInput.fromPartial({ title: page.title, markdown: page.markdown, parentPageId: page.parent ?? "" }),
      });
      ids.push(created.page!.id);
    }
  });
  return ids;
}

const searchSpace = (spaceId: string, query: string, options: { token?: string; extra?: string } = {}) =>
  call(stack, "GET", `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}${options.extra ?? ""}`, { token: options.token ?? org.owner.token });

/** Waits until the search answers `count` items (the index follows the content's events). */
async function until(request: () => Promise<CallResult>, count: number): Promise<CallResult> {
  return eventually(async () => {
    const response = await request();
    return response.status === 200 && response.body.items.length === count ? response : undefined;
  }, 10_000);
}

describe("GET /v1/spaces/{spaceId}/search", () => {
  it("answers SearchPageResult items with sections, ancestors and app URLs, best first", async () => {
    const space = await createSpace(stack, org);
    const term = word("orbit");
    const [guide] = await commitPages(space.id, [{ title: "Guide", markdown: "The guide." }]);
    await commitPages(space.id, [
      { title: `${term} overview`, markdown: "Everything at a glance.", parent: guide },
      { title: "Launch", markdown: `Before launch.\n\n## Reaching ${term}\n\nBurn the engines.`, parent: guide },
    ]);
    const response = await until(() => searchSpace(space.id, term), 2);
    expect(response.body.count).toBe(2);
    expect(response.body.next).toBeUndefined();
    const [first, second] = response.body.items;
    expect(first).toMatchObject({ title: `${term} overview`, path: `guide/${term}-overview`, rank: 1, resultType: "page", ancestors: [{ title: "Guide" }] });
    expect(first.urls.app).toMatch(new RegExp(`/o/${org.organizationId}/s/${space.id}/guide/${term}-overview$`));
    expect(second).toMatchObject({ title: "Launch", rank: 2, resultType: "section" });
    expect(second.sections[0]).toMatchObject({
      id: `reaching-${term}`,
      title: `Reaching ${term}`,
      path: `guide/launch#reaching-${term}`,
      resultType: "section",
    });
    expect(second.sections[0].urls.app).toMatch(new RegExp(`/guide/launch#reaching-${term}$`));
    expect(first.score).toBeGreaterThan(second.score);
  });

  it("pages with limit and the next cursor", async () => {
    const space = await createSpace(stack, org);
    const term = word("paged");
    await commitPages(
      space.id,
      [1, 2, 3].map((n) => ({ title: `Page ${n}`, markdown: `${term} ${"filler ".repeat(n)}` })),
    );
    await until(() => searchSpace(space.id, term), 3);
    const first = await searchSpace(space.id, term, { extra: "&limit=2" });
    expect(first.body.items.map((item: { rank: number }) => item.rank)).toEqual([1, 2]);
    expect(first.body.count).toBe(3);
    const second = await searchSpace(space.id, term, { extra: `&limit=2&page=${encodeURIComponent(first.body.next.page)}` });
    expect(second.body.items.map((item: { rank: number }) => item.rank)).toEqual([3]);
    expect(second.body.next).toBeUndefined();
  });

  it("finds imported pages within seconds of the import", async () => {
    const term = word("imported");
    const server: Server = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        request.url === "/help/"
          ? `<html><body><main><h1>Help</h1><p>See <a href="/help/faq">the FAQ</a>.</p></main></body></html>`
          : `<html><body><main><h1>Questions</h1><h2>Why ${term}?</h2><p>Because ${term} works.</p></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const space = await createSpace(stack, org);
      expect((await searchSpace(space.id, term)).body.items).toEqual([]);
      const imported = await call(stack, "POST", `/v1/spaces/${space.id}/content/import`, {
        token: org.owner.token,
        json: { source: "website", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/help/` },
        notInOpenApi: "importContent exists in GitBook's API 0.143.2 only",
      });
      expect(imported.status).toBe(201);
      const response = await until(() => searchSpace(space.id, term), 1);
      expect(response.body.items[0]).toMatchObject({ title: "Questions" });
      expect(response.body.items[0].sections[0].body).toContain(`Because ${term} works`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers 400 naming query, and 404 for another organization's space", async () => {
    const space = await createSpace(stack, org);
    const missing = await call(stack, "GET", `/v1/spaces/${space.id}/search`, { token: org.owner.token });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^query: /);
    const long = await searchSpace(space.id, "x".repeat(513));
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("query: must be at most 512 characters");
    const other = await createOrganization(stack);
    const foreign = await searchSpace(space.id, "anything", { token: other.owner.token });
    expect(foreign.status).toBe(404);
    const unknown = await call(stack, "GET", `/v1/orgs/${org.organizationId}/search?query=anything`, { token: other.owner.token });
    expect(unknown.status).toBe(404);
  });
});

describe("GET /v1/orgs/{organizationId}/search", () => {
  it("answers SearchSpaceResult items for the spaces the caller can read only", async () => {
    const owner = await createOrganization(stack);
    const reader = await createMember(stack, owner, { role: "read" });
    const term = word("fleet");
    const open = await createSpace(stack, owner, { title: "Open" });
    const closed = await createSpace(stack, owner, { title: "Closed" });
    const patched = await call(stack, "PATCH", `/v1/spaces/${closed.id}`, { token: owner.owner.token, json: { defaultLevel: null } });
    expect(patched.status).toBe(200);
    const foreign = await createSpace(stack, org, { title: "Foreign" });
    const seed = (organization: TestOrganization, spaceId: string, title: string, markdown: string) =>
      commitEdits(editing, { userId: organization.owner.userId, spaceId }, (draft) => draft.createPage({ title, markdown }));
    await seed(owner, open.id, `${term} handbook`, "Welcome.");
    await seed(owner, closed.id, "Plans", `The ${term} plans, in a longer text than the handbook holds.`);
    await seed(org, foreign.id, "Elsewhere", `A ${term} elsewhere.`);

    const orgSearch = (token: string) => call(stack, "GET", `/v1/orgs/${owner.organizationId}/search?query=${term}`, { token });
    const forOwner = await until(() => orgSearch(owner.owner.token), 2);
    expect(forOwner.body.count).toBe(2);
    expect(forOwner.body.items.map((item: { type: string; title: string }) => [item.type, item.title])).toEqual([
      ["space", "Open"],
      ["space", "Closed"],
    ]);
    expect(forOwner.body.items[0].pages[0]).toMatchObject({ title: `${term} handbook`, rank: 1 });
    expect(forOwner.body.items[0].pages[0].urls.app).toMatch(new RegExp(`/o/${owner.organizationId}/s/${open.id}/`));

    const forReader = await orgSearch(reader.token);
    expect(forReader.status).toBe(200);
    expect(forReader.body.items.map((item: { title: string }) => item.title)).toEqual(["Open"]);
  });
});

describe("POST /v1/orgs/{organizationId}/sites/{siteId}/search", () => {
  it("searches the site-spaces its scope names, as SearchSpaceResult items of the spaces the caller can read", async () => {
    const owner = await createOrganization(stack);
    const reader = await createMember(stack, owner, { role: "read" });
    const term = word("harbor");
    const first = await createSpace(stack, owner, { title: "First" });
    const second = await createSpace(stack, owner, { title: "Second" });
    const closed = await createSpace(stack, owner, { title: "Closed" });
    const outside = await createSpace(stack, owner, { title: "Outside" });
    expect((await call(stack, "PATCH", `/v1/spaces/${closed.id}`, { token: owner.owner.token, json: { defaultLevel: null } })).status).toBe(200);
    const seed = (spaceId: string, title: string) =>
      commitEdits(editing, { userId: owner.owner.userId, spaceId }, (draft) => draft.createPage({ title, markdown: `The ${term} notes.` }));
    for (const [space, title] of [
      [first, `${term} in first`],
      [second, `${term} in second`],
      [closed, `${term} in closed`],
      [outside, `${term} outside`],
    ] as const) {
      await seed(space.id, title);
    }
    const site = (await owner.owner.api.orgs.createSite(owner.organizationId, { title: "Searched", spaces: [first.id, second.id, closed.id] })).data;
    const siteSpaces = (await owner.owner.api.orgs.listSiteSpaces(owner.organizationId, site.id)).data.items;
    const siteSpaceOf = (spaceId: string) => siteSpaces.find((siteSpace) => siteSpace.space.id === spaceId)!.id;
    const titles = (response: { data: { items: { type: string; title: string }[] } }) => response.data.items.map((item) => item.title).sort();
    const search = (body: Parameters<typeof owner.owner.api.orgs.searchSiteContent>[2], api = owner.owner.api) =>
      api.orgs.searchSiteContent(owner.organizationId, site.id, body);

    const all = await eventually(async () => {
      const response = await search({ query: term, scope: { mode: "all" } });
      return response.data.items.length === 3 ? response : undefined;
    }, 10_000);
    expect(titles(all)).toEqual(["Closed", "First", "Second"]);
    expect(all.data.items[0]).toMatchObject({ type: "space" });
    const hit = all.data.items.find((item) => item.title === "First") as { id: string; pages: { title: string; urls: { app: string } }[] };
    expect(hit.id).toBe(first.id);
    expect(hit.pages[0]!.title).toBe(`${term} in first`);
    expect(hit.pages[0]!.urls.app).toMatch(new RegExp(`/o/${owner.organizationId}/s/${first.id}/`));

    // The default scope is the site's default site-space; the current one joins it, or alone, or is left out.
    expect(titles(await search({ query: term, scope: { mode: "default" } }))).toEqual(["First"]);
    expect(titles(await search({ query: term, scope: { mode: "default", currentSiteSpace: siteSpaceOf(second.id) } }))).toEqual(["First", "Second"]);
    expect(titles(await search({ query: term, scope: { mode: "default", currentSiteSpace: siteSpaceOf(second.id), restrictTo: "currentSiteSpace" } }))).toEqual(
      ["Second"],
    );
    expect(titles(await search({ query: term, scope: { mode: "default", currentSiteSpace: siteSpaceOf(second.id), restrictTo: "otherSiteSpaces" } }))).toEqual([
      "First",
    ]);
    expect(titles(await search({ query: term, scope: { mode: "specific", siteSpaceIds: [siteSpaceOf(second.id)] } }))).toEqual(["Second"]);
    // GitBook's deprecated forms.
    expect(titles(await search({ query: term, siteSpaceIds: [siteSpaceOf(second.id)] }))).toEqual(["Second"]);
    expect(titles(await search({ query: term, mode: "current", siteSpaceId: siteSpaceOf(second.id) }))).toEqual(["First", "Second"]);
    expect(titles(await search({ query: term, mode: "all" }))).toEqual(["Closed", "First", "Second"]);

    // A member who cannot read a space of the site finds nothing of it.
    expect(titles(await search({ query: term, scope: { mode: "all" } }, reader.api))).toEqual(["First", "Second"]);
  });

  it("pages the spaces with limit and the next cursor", async () => {
    const owner = await createOrganization(stack);
    const term = word("tide");
    const spaces = [await createSpace(stack, owner, { title: "One" }), await createSpace(stack, owner, { title: "Two" })];
    for (const space of spaces) {
      await commitEdits(editing, { userId: owner.owner.userId, spaceId: space.id }, (draft) => draft.createPage({ title: `${term} page`, markdown: "Text." }));
    }
    const site = (await owner.owner.api.orgs.createSite(owner.organizationId, { title: "Paged", spaces: spaces.map((space) => space.id) })).data;
    await eventually(
      async () => (await owner.owner.api.orgs.searchSiteContent(owner.organizationId, site.id, { query: term, mode: "all" })).data.count === 2,
      10_000,
    );
    const firstPage = (await owner.owner.api.orgs.searchSiteContent(owner.organizationId, site.id, { query: term, mode: "all" }, { limit: 1 })).data;
    expect(firstPage.items).toHaveLength(1);
    const secondPage = (
      await owner.owner.api.orgs.searchSiteContent(owner.organizationId, site.id, { query: term, mode: "all" }, { limit: 1, page: firstPage.next!.page })
    ).data;
    expect(secondPage.items).toHaveLength(1);
    expect(secondPage.next).toBeUndefined();
    expect(new Set([...firstPage.items, ...secondPage.items].map((item) => item.id))).toEqual(new Set(spaces.map((space) => space.id)));
  });

  it("answers 400 naming the field, and 404 for another organization's site", async () => {
    const owner = await createOrganization(stack);
    const space = await createSpace(stack, owner);
    const site = (await owner.owner.api.orgs.createSite(owner.organizationId, { title: "Refusing", spaces: [space.id] })).data;
    const path = `/v1/orgs/${owner.organizationId}/sites/${site.id}/search`;
    const post = (json: unknown, token = owner.owner.token) => call(stack, "POST", path, { token, json });
    const refusals: [unknown, RegExp][] = [
      [{ scope: { mode: "all" } }, /^query: is required/],
      [{ query: "x".repeat(513), scope: { mode: "all" } }, /^query: must be at most 512 characters/],
      [{ query: "a", scope: { mode: "sideways" } }, /^scope(\.mode)?: /],
      [{ query: "a", scope: { mode: "specific", siteSpaceIds: [] } }, /^scope\.siteSpaceIds: must contain at least 1 items/],
      [{ query: "a", scope: { mode: "specific", siteSpaceIds: [space.id] } }, new RegExp(`^scope\\.siteSpaceIds: no site space ${space.id} in this site`)],
      [{ query: "a", scope: { mode: "default", restrictTo: "currentSiteSpace" } }, /^scope\.currentSiteSpace: required with restrictTo/],
      [{ query: "a", mode: "current" }, /^siteSpaceId: is required/],
      [{ query: "a", scope: { mode: "all" }, mode: "all" }, /^scope: cannot be combined/],
    ];
    for (const [json, message] of refusals) {
      const response = await post(json);
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.error.message).toMatch(message);
    }
    const other = await createOrganization(stack);
    expect((await post({ query: "a", scope: { mode: "all" } }, other.owner.token)).status).toBe(404);
    const theirs = (await other.owner.api.orgs.createSite(other.organizationId, { title: "Theirs" })).data;
    expect(
      (await call(stack, "POST", `/v1/orgs/${owner.organizationId}/sites/${theirs.id}/search`, { token: owner.owner.token, json: { query: "a" } })).status,
    ).toBe(404);
  });
});

describe("POST /v1/orgs/{organizationId}/sites/{siteId}/search/prewarm", () => {
  /** A published site showing a new space, once content knows the space is published. */
  async function publishedSite() {
    const space = await createSpace(stack, org);
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Prewarmed", spaces: [space.id] })).data;
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    await eventually(async () => (await org.owner.api.spaces.getSpaceById(space.id)).data.urls.published !== undefined, 10_000);
    return { space, site };
  }

  it("answers 204 once the site's published spaces are searchable at their current revision, for anyone who sees the site", async () => {
    const { space, site } = await publishedSite();
    const term = word("prewarm");
    await commitPages(space.id, [{ title: `${term} notes`, markdown: "Warm before the visitors come." }]);
    expect((await org.owner.api.orgs.prewarmSiteSearch(org.organizationId, site.id)).status).toBe(204);
    // No waiting: the commit is in the index when the call answers.
    expect((await searchSpace(space.id, term)).body.items.map((item: { title: string }) => item.title)).toEqual([`${term} notes`]);
    expect((await org.owner.api.orgs.prewarmSiteSearch(org.organizationId, site.id)).status).toBe(204);
    const reader = await createMember(stack, org, { role: "read" });
    expect((await reader.api.orgs.prewarmSiteSearch(org.organizationId, site.id)).status).toBe(204);
    const unpublished = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Draft", spaces: [space.id] })).data;
    expect((await org.owner.api.orgs.prewarmSiteSearch(org.organizationId, unpublished.id)).status).toBe(204);
  });

  it("answers 404 for another organization's site, a guest not granted it or an unknown site; 400 naming siteId", async () => {
    const { site } = await publishedSite();
    const prewarm = (siteId: string, token: string, organizationId = org.organizationId) =>
      call(stack, "POST", `/v1/orgs/${organizationId}/sites/${siteId}/search/prewarm`, { token });
    const other = await createOrganization(stack);
    expect((await prewarm(site.id, other.owner.token)).status).toBe(404);
    expect((await prewarm(site.id, other.owner.token, other.organizationId)).status).toBe(404);
    const guest = await createMember(stack, org, { role: "guest" });
    expect((await prewarm(site.id, guest.token)).status).toBe(404);
    expect((await prewarm(randomUUID(), org.owner.token)).status).toBe(404);
    const long = await prewarm("x".repeat(129), org.owner.token);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/^siteId: /);
  });
});
