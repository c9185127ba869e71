import { randomUUID } from "node:crypto";
import { ContentLevel } from "@imprint/proto/content/v1/spaces";
import { SearchResultType, SearchServiceService, type SearchPage } from "@imprint/proto/content/v1/search";
import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { GrantTarget, UserPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { PromiseClient } from "@imprint/runtime";
import {
  eventually,
  testClient,
  createMember,
  createOrganization,
  createOutsider,
  createSpace,
  createCollection,
  type TestOrganization,
  type TestUser,
  failure,
  createRevision,
} from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropSpaceFromIndex } from "../src/search/use-cases/index-space.js";
import { serveSite, type TestSite } from "./fixtures/site/server.js";
import { contentClients, newPage, pageChange, type ContentClients } from "./revisions-fixtures.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

type SearchClient = PromiseClient<typeof SearchServiceService>;

/**
 * Search through gRPC, fed by the real pipeline: commits and imports record `revision.created`,
 * the relay publishes it to nats-server, the search consumer indexes the space's new head.
 * Every test uses words of its own (`word(...)`), so tests never see each other's pages.
 */
let harness: ContentHarness;
let clients: ContentClients;
let search: SearchClient;
let organization: TestOrganization;

beforeAll(async () => {
  harness = await startContentHarness({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
  clients = contentClients(harness);
  search = testClient(SearchServiceService, harness.contentAddress);
  organization = await createOrganization(harness);
});
afterAll(async () => {
  search?.close();
  clients?.close();
  await harness?.stop();
});

/** A made-up word no other test uses: ten letters a to p after a readable label. */
function word(label: string): string {
  const letters = randomUUID()
    .replace(/-/g, "")
    .slice(0, 10)
    .replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 16)));
  return `${label}${letters}`;
}

const searchSpace = async (spaceId: string, query: string, options: { caller?: TestUser; pageSize?: number; pageToken?: string } = {}) =>
  search.searchSpaceContent({
    caller: (options.caller ?? organization.owner).caller,
    spaceId,
    query,
    page: { pageToken: options.pageToken ?? "", pageSize: options.pageSize ?? 0 },
  });

const titles = (pages: readonly SearchPage[]) => pages.map((page) => page.title);

/** Waits until the space search answers titles equal to `expected` (the index follows events). */
async function untilTitles(spaceId: string, query: string, expected: string[]): Promise<SearchPage[]> {
  return eventually(async () => {
    const { pages } = await searchSpace(spaceId, query);
    return JSON.stringify(titles(pages)) === JSON.stringify(expected) ? pages : undefined;
  }, 10_000);
}

/** Creates pages (title → markdown) in one commit; answers their ids by title. */
async function commitPages(spaceId: string, pages: Record<string, string>, parentPageId = ""): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  await createRevision(clients, organization.owner.caller, { spaceId }, async (draftId) => {
    for (const [title, markdown] of Object.entries(pages)) {
      const created = await clients.editing.createPage({ caller: organization.owner.caller, draftId, page: newPage({ title, markdown, parentPageId }) });
      ids[title] = created.page!.id;
    }
  });
  return ids;
}

describe("indexing follows the space's current revision", () => {
  it("finds a committed page within seconds, follows edits and deletions", async () => {
    const space = await createSpace(harness, organization);
    const first = word("kube");
    const second = word("helm");
    const ids = await commitPages(space.id, { Deploying: `Run the ${first} operator.\n\n## Rollback\n\nUndo with care.` });
    const [found] = await untilTitles(space.id, first, ["Deploying"]);
    expect(found!.id).toBe(ids.Deploying);
    expect(found!.path).toBe("deploying");

    await createRevision(clients, organization.owner.caller, { spaceId: space.id }, (draftId) =>
      clients.editing.updatePage({
        caller: organization.owner.caller,
        draftId,
        page: pageChange({ pageId: ids.Deploying!, markdown: `Use ${second} charts instead.` }),
      }),
    );
    await untilTitles(space.id, second, ["Deploying"]);
    expect(titles((await searchSpace(space.id, first)).pages)).toEqual([]);

    await createRevision(clients, organization.owner.caller, { spaceId: space.id }, (draftId) =>
      clients.editing.deletePage({ caller: organization.owner.caller, draftId, pageId: ids.Deploying! }),
    );
    await untilTitles(space.id, second, []);
  });

  it("makes an imported website searchable within seconds of the import", async () => {
    const term = word("imported");
    const site: TestSite = await serveSite({
      "/kb/": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(`<html><head><title>Knowledge base</title></head><body><main><h1>Knowledge base</h1>
          <p>Start here.</p><a href="/kb/setup">Setup</a></main></body></html>`);
      },
      "/kb/setup": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(`<html><body><main><h1>Setup guide</h1><p>Intro.</p><h2>Installing the agent</h2>
          <p>Download the ${term} agent and run it.</p></main></body></html>`);
      },
    });
    const imports = testClient(ImportServiceService, harness.contentAddress, { defaultTimeoutMs: 60_000 });
    try {
      const space = await createSpace(harness, organization);
      expect(titles((await searchSpace(space.id, term)).pages)).toEqual([]);
      await imports.importContent({
        caller: organization.owner.caller,
        ref: { spaceId: space.id, changeRequestId: "", revisionId: "" },
        url: `${site.origin}/kb/`,
        source: "website",
        underPageId: "",
      });
      const [page] = await untilTitles(space.id, term, ["Setup guide"]);
      // The start page and the pages below it form the import's top level.
      expect(page!.path).toBe("setup");
      expect(page!.sections[0]).toMatchObject({ id: "installing-the-agent", title: "Installing the agent", path: "setup#installing-the-agent" });
      expect(page!.sections[0]!.body).toContain(term);
    } finally {
      imports.close();
      await site.close();
    }
  });

  it("re-indexes only the pages that changed, and rewrites the paths below a renamed page", async () => {
    const space = await createSpace(harness, organization);
    const term = word("unchanged");
    const pages = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`Page ${index}`, `Common ${term} text number ${index}.`]));
    const ids = await commitPages(space.id, { Section: `The ${term} section.` });
    const children = await commitPages(space.id, pages, ids.Section);
    await eventually(async () => ((await searchSpace(space.id, term)).pageInfo!.totalCount === 13 ? true : undefined), 10_000);
    // xmin is the transaction that last wrote a row: untouched rows keep theirs.
    const writes = async () =>
      new Map(
        (
          await harness.content.orm.em
            .fork()
            .execute<{ page_id: string; xmin: string }[]>(`select page_id, xmin::text from search_pages where space_id = ?`, [space.id])
        ).map((row) => [row.page_id, row.xmin]),
      );
    const before = await writes();

    const renamed = word("renamed");
    await createRevision(clients, organization.owner.caller, { spaceId: space.id }, (draftId) =>
      clients.editing.updatePage({
        caller: organization.owner.caller,
        draftId,
        page: pageChange({ pageId: children["Page 3"]!, markdown: `Now about ${renamed}.` }),
      }),
    );
    await untilTitles(space.id, renamed, ["Page 3"]);
    const after = await writes();
    const rewritten = [...after].filter(([pageId, xmin]) => before.get(pageId) !== xmin).map(([pageId]) => pageId);
    expect(rewritten).toEqual([children["Page 3"]]);

    await createRevision(clients, organization.owner.caller, { spaceId: space.id }, (draftId) =>
      clients.editing.updatePage({
        caller: organization.owner.caller,
        draftId,
        page: pageChange({ pageId: ids.Section!, title: "Handbook", slug: "handbook" }),
      }),
    );
    const [page] = await eventually(async () => {
      const { pages: found } = await searchSpace(space.id, renamed);
      return found[0]?.path === "handbook/page-3" ? found : undefined;
    }, 10_000);
    expect(page!.ancestorTitles).toEqual(["Handbook"]);
  });
});

describe("queries", () => {
  let spaceId: string;
  const term = word("zeppelin");
  const fruit = word("apple");
  const [alpha, beta, gamma, delta] = [word("alpha"), word("beta"), word("gamma"), word("delta")];

  beforeAll(async () => {
    spaceId = (await createSpace(harness, organization)).id;
    await commitPages(spaceId, {
      [`${term} manual`]: "All about airships.",
      "Heading match": `Intro text.\n\n## The ${term} section\n\nMore text.`,
      "Body match": `Intro text.\n\n## Other\n\nA paragraph that mentions the ${term} once, among other words.`,
      Configuration: `How the ${fruit}prefixconfiguration works.`,
      Red: `red ${fruit} pie`,
      Reversed: `${fruit} red pie`,
      Green: `green ${fruit} tart`,
      "Three words": `${alpha} ${beta} ${gamma}`,
      "Two words": `${alpha} and ${beta}`,
      "One word": `only ${alpha}`,
    });
    await eventually(async () => ((await searchSpace(spaceId, alpha)).pages.length === 3 ? true : undefined), 10_000);
  });

  it("ranks a title match above a heading match above a body match", async () => {
    const { pages } = await searchSpace(spaceId, term);
    expect(titles(pages)).toEqual([`${term} manual`, "Heading match", "Body match"]);
    expect(pages.map((page) => page.rank)).toEqual([1, 2, 3]);
    expect(pages[0]!.score).toBeGreaterThan(pages[1]!.score);
    expect(pages[1]!.score).toBeGreaterThan(pages[2]!.score);
    expect(pages[0]!.resultType).toBe(SearchResultType.SEARCH_RESULT_TYPE_PAGE);
    expect(pages[1]!.resultType).toBe(SearchResultType.SEARCH_RESULT_TYPE_SECTION);
    // The heading section: its anchor, and the page path with the anchor.
    const heading = pages[1]!.sections[0]!;
    expect(heading).toMatchObject({
      id: `the-${term}-section`,
      anchor: `the-${term}-section`,
      title: `The ${term} section`,
      path: `heading-match#the-${term}-section`,
    });
    // The body section: an excerpt around the word, as plain text.
    const body = pages[2]!.sections[0]!;
    expect(body.title).toBe("Other");
    expect(body.body).toContain(`mentions the ${term} once`);
    expect(body.body).not.toMatch(/[<>]/);
  });

  it("matches the last word as a prefix", async () => {
    expect(titles((await searchSpace(spaceId, `${fruit}prefixconf`)).pages)).toEqual(["Configuration"]);
    expect(titles((await searchSpace(spaceId, `${fruit}prefixconfigurations`)).pages)).toEqual(["Configuration"]);
    expect(titles((await searchSpace(spaceId, `${fruit}prefixconfx`)).pages)).toEqual([]);
    // A quoted word is exact: no prefix.
    expect(titles((await searchSpace(spaceId, `"${fruit}prefixconf"`)).pages)).toEqual([]);
  });

  it("understands web-search syntax: phrases, negation, or", async () => {
    expect(titles((await searchSpace(spaceId, `"red ${fruit}"`)).pages)).toEqual(["Red"]);
    expect(titles((await searchSpace(spaceId, `${fruit} -red`)).pages)).toEqual(["Green"]);
    expect(titles((await searchSpace(spaceId, `${fruit} tart or ${fruit} pie`)).pages).sort()).toEqual(["Green", "Red", "Reversed"]);
  });

  it("answers the pages holding most of the words when none holds them all, ranked by how many", async () => {
    const all = await searchSpace(spaceId, `${alpha} ${beta}`);
    expect(titles(all.pages).sort()).toEqual(["Three words", "Two words"]);

    const most = await searchSpace(spaceId, `${alpha} ${beta} ${gamma} ${delta}`);
    expect(titles(most.pages)).toEqual(["Three words", "Two words", "One word"]);
    expect(most.pageInfo!.totalCount).toBe(3);
    const full = await searchSpace(spaceId, `${alpha} ${beta} ${gamma}`);
    expect(most.pages[0]!.score).toBeLessThan(full.pages[0]!.score);
    // Excluded words still exclude in the fallback.
    expect(titles((await searchSpace(spaceId, `${alpha} ${beta} ${delta} -${gamma}`)).pages)).toEqual(["Two words", "One word"]);
  });

  it("pages through ranked results with opaque tokens bound to the query", async () => {
    const first = await searchSpace(spaceId, term, { pageSize: 2 });
    expect(first.pages.map((page) => page.rank)).toEqual([1, 2]);
    expect(first.pageInfo).toMatchObject({ totalCount: 3 });
    expect(first.pageInfo!.nextPageToken).not.toBe("");
    const second = await searchSpace(spaceId, term, { pageSize: 2, pageToken: first.pageInfo!.nextPageToken });
    expect(titles(second.pages)).toEqual(["Body match"]);
    expect(second.pages[0]!.rank).toBe(3);
    expect(second.pageInfo!.nextPageToken).toBe("");

    const replayed = await failure(searchSpace(spaceId, fruit, { pageToken: first.pageInfo!.nextPageToken }));
    expect(replayed).toMatchObject({ code: "invalid_argument", message: "page: not a valid page token for this list" });
    expect(await failure(searchSpace(spaceId, term, { pageToken: "garbage" }))).toMatchObject({ code: "invalid_argument" });
  });

  it("refuses an empty or too long query and a bad page size, naming the field", async () => {
    expect(await failure(searchSpace(spaceId, "   "))).toMatchObject({ code: "invalid_argument", message: "query: must be 1 to 512 characters" });
    expect(await failure(searchSpace(spaceId, "x".repeat(513)))).toMatchObject({ code: "invalid_argument", message: "query: must be 1 to 512 characters" });
    expect(await failure(searchSpace(spaceId, term, { pageSize: 1001 }))).toMatchObject({
      code: "invalid_argument",
      message: "limit: must be an integer between 1 and 1000",
    });
  });

  it("answers no results (not an error) for a query of stop words only", async () => {
    const { pages, pageInfo } = await searchSpace(spaceId, "the and of");
    expect(pages).toEqual([]);
    expect(pageInfo!.totalCount).toBe(0);
  });
});

describe("who sees what", () => {
  it("answers 404 for another organization's space and a missing one", async () => {
    const space = await createSpace(harness, organization);
    const other = await createOrganization(harness);
    const outsider = await createOutsider(harness);
    expect(await failure(searchSpace(space.id, "anything", { caller: other.owner }))).toMatchObject({ code: "not_found" });
    expect(await failure(searchSpace(space.id, "anything", { caller: outsider }))).toMatchObject({ code: "not_found" });
    expect(await failure(searchSpace(randomUUID(), "anything"))).toMatchObject({ code: "not_found" });
    const orgSearch = search.searchOrganizationContent({
      caller: outsider.caller,
      organizationId: organization.organizationId,
      query: "anything",
      page: undefined,
    });
    expect(await failure(orgSearch)).toMatchObject({ code: "not_found" });
  });

  it("searches an organization's readable spaces only, grouped by space, never another organization's", async () => {
    const org = await createOrganization(harness);
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const term = word("shared");
    const as = (user: TestUser) => ({ caller: user.caller, organizationId: org.organizationId, query: term, page: undefined });
    const open = await createSpace(harness, org, { title: "Open space" });
    const restricted = await createSpace(harness, org, { title: "Restricted" });
    await harness.spaces.updateSpace({
      caller: org.owner.caller,
      spaceId: restricted.id,
      updateMask: ["default_level"],
      title: "",
      emoji: "",
      editMode: 0,
      defaultLevel: ContentLevel.CONTENT_LEVEL_NONE,
      visibility: 0,
    });
    const elsewhere = await createSpace(harness, organization, { title: "Other organization" });
    const commitAs = async (owner: TestUser, spaceId: string, pages: Record<string, string>) =>
      createRevision(clients, owner.caller, { spaceId }, async (draftId) => {
        for (const [title, markdown] of Object.entries(pages)) {
          await clients.editing.createPage({ caller: owner.caller, draftId, page: newPage({ title, markdown }) });
        }
      });
    await commitAs(org.owner, open.id, { [`${term} basics`]: "Title match.", Details: `Body mentions ${term}.` });
    await commitAs(org.owner, restricted.id, { Secret: `The ${term} plan, in a longer text than the other pages hold, so that it ranks below them.` });
    await commitAs(organization.owner, elsewhere.id, { Foreign: `The ${term} elsewhere.` });

    const forOwner = await eventually(async () => {
      const result = await search.searchOrganizationContent(as(org.owner));
      return result.spaces.length === 2 ? result : undefined;
    }, 10_000);
    expect(forOwner.spaces.map((space) => space.title)).toEqual(["Open space", "Restricted"]);
    expect(forOwner.pageInfo!.totalCount).toBe(2);
    expect(titles(forOwner.spaces[0]!.pages)).toEqual([`${term} basics`, "Details"]);
    expect(forOwner.spaces[0]!.pages.map((page) => page.rank)).toEqual([1, 2]);
    expect(forOwner.spaces[0]!.score).toBe(forOwner.spaces[0]!.pages[0]!.score);

    const forReader = await search.searchOrganizationContent(as(reader));
    expect(forReader.spaces.map((space) => space.title)).toEqual(["Open space"]);
    expect(forReader.pageInfo!.totalCount).toBe(1);
    expect(await failure(searchSpace(restricted.id, term, { caller: reader }))).toMatchObject({ code: "not_found" });
  });
});

describe("search and people's grants", () => {
  it("finds for a guest only the spaces granted to them (directly, or inside a granted collection)", async () => {
    const org = await createOrganization(harness);
    const guest = await createMember(harness, org.organizationId, { role: "guest" });
    const term = word("granted");
    const granted = await createSpace(harness, org, { title: "Granted" });
    const collection = await createCollection(harness, org, { title: "Shelf" });
    const inside = await createSpace(harness, org, { title: "On the shelf", parentId: collection.id });
    const other = await createSpace(harness, org, { title: "Not granted" });
    for (const space of [granted, inside, other]) {
      await createRevision(clients, org.owner.caller, { spaceId: space.id }, async (draftId) => {
        await clients.editing.createPage({ caller: org.owner.caller, draftId, page: newPage({ title: `${term} in ${space.title}`, markdown: "Text." }) });
      });
    }
    const asGuest = { caller: guest.caller, organizationId: org.organizationId, query: term, page: undefined };
    await eventually(async () => {
      const result = await search.searchOrganizationContent({ ...asGuest, caller: org.owner.caller });
      return result.spaces.length === 3 ? result : undefined;
    }, 10_000);
    expect((await search.searchOrganizationContent(asGuest)).spaces).toEqual([]);

    const grants = testClient(UserPermissionServiceService, harness.contentAddress);
    try {
      const grant = (target: GrantTarget, targetId: string) =>
        grants.setUserPermission({ caller: org.owner.caller, target, targetId, userId: guest.userId, role: MemberRole.MEMBER_ROLE_READ });
      await grant(GrantTarget.GRANT_TARGET_SPACE, granted.id);
      await grant(GrantTarget.GRANT_TARGET_COLLECTION, collection.id);
    } finally {
      grants.close();
    }
    const found = await search.searchOrganizationContent(asGuest);
    expect(found.spaces.map((space) => space.title).sort()).toEqual(["Granted", "On the shelf"]);
    expect(await failure(searchSpace(other.id, term, { caller: guest }))).toMatchObject({ code: "not_found" });
  });
});

describe("space lifecycle", () => {
  it("indexes a duplicated space, and follows a space transferred to another organization", async () => {
    const term = word("moving");
    const space = await createSpace(harness, organization, { title: "Original" });
    await commitPages(space.id, { Traveller: `The ${term} page.` });
    await untilTitles(space.id, term, ["Traveller"]);

    const { space: copy } = await harness.spaces.duplicateSpace({ caller: organization.owner.caller, spaceId: space.id });
    await untilTitles(copy!.id, term, ["Traveller"]);
    // The copy starts from the original's rows, then lives its own life.
    const edited = word("edited");
    const [copiedPage] = (await searchSpace(copy!.id, term)).pages;
    await createRevision(clients, organization.owner.caller, { spaceId: copy!.id }, (draftId) =>
      clients.editing.updatePage({ caller: organization.owner.caller, draftId, page: pageChange({ pageId: copiedPage!.id, markdown: `The ${edited} copy.` }) }),
    );
    await untilTitles(copy!.id, edited, ["Traveller"]);
    expect(titles((await searchSpace(space.id, edited)).pages)).toEqual([]);
    expect(titles((await searchSpace(space.id, term)).pages)).toEqual(["Traveller"]);

    const target = await createOrganization(harness);
    await createMember(harness, target.organizationId, { email: organization.owner.email, role: "admin" });
    await harness.spaces.transferSpace({
      caller: organization.owner.caller,
      spaceId: space.id,
      organizationId: target.organizationId,
      parent: { collectionId: "" },
    });
    const orgSearch = async (organizationId: string, query: string) =>
      (await search.searchOrganizationContent({ caller: organization.owner.caller, organizationId, query, page: undefined })).spaces.map((found) => found.id);
    expect(await orgSearch(target.organizationId, term)).toEqual([space.id]);
    expect(await orgSearch(organization.organizationId, term)).toEqual([]);
    expect(await orgSearch(organization.organizationId, edited)).toEqual([copy!.id]);
    // The members of the organization it left lose it at once.
    const formerReader = await createMember(harness, organization.organizationId, { role: "read" });
    expect(await failure(searchSpace(space.id, term, { caller: formerReader }))).toMatchObject({ code: "not_found" });
  });

  it("drops a deleted space's results, brings them back on restore, and forgets a purged space", async () => {
    const term = word("lifecycle");
    const space = await createSpace(harness, organization, { title: "Short-lived" });
    await commitPages(space.id, { Ephemeral: `Gone ${term} soon.` });
    const orgHits = async () =>
      (await search.searchOrganizationContent({ caller: organization.owner.caller, organizationId: organization.organizationId, query: term, page: undefined }))
        .spaces.length;
    const indexedRows = async () =>
      Number(
        (await harness.content.orm.em.fork().execute<{ count: string }[]>(`select count(*) from search_sections where space_id = ?`, [space.id]))[0]!.count,
      );
    await eventually(async () => ((await orgHits()) === 1 ? true : undefined), 10_000);

    await harness.spaces.deleteSpace({ caller: organization.owner.caller, spaceId: space.id });
    expect(await orgHits()).toBe(0);
    expect(await failure(searchSpace(space.id, term))).toMatchObject({ code: "not_found" });
    await eventually(async () => ((await indexedRows()) === 0 ? true : undefined), 10_000);

    await harness.spaces.restoreSpace({ caller: organization.owner.caller, spaceId: space.id });
    await untilTitles(space.id, term, ["Ephemeral"]);
    expect(await orgHits()).toBe(1);

    await harness.spaces.deleteSpace({ caller: organization.owner.caller, spaceId: space.id });
    harness.clock.advanceDays(8);
    expect((await harness.spaces.purgeDeletedSpaces({})).spaceIds).toContain(space.id);
    await eventually(async () => ((await indexedRows()) === 0 ? true : undefined), 10_000);
    const state = await harness.content.orm.em.fork().execute<{ count: string }[]>(`select count(*) from search_spaces where space_id = ?`, [space.id]);
    expect(Number(state[0]!.count)).toBe(0);
  });
});

describe("PrewarmPublishedSearch", () => {
  /** Publishing's announcement, as content keeps it on the space (what its consumer writes). */
  async function markPublished(spaceId: string): Promise<void> {
    const address = {
      siteId: randomUUID(),
      organizationId: organization.organizationId,
      basename: "docs",
      hostname: "",
      proxy: "",
      sectionPath: "",
      path: "guide",
    };
    await harness.content.orm.em.fork().execute(`update spaces set published_address = ? where id = ?`, [JSON.stringify(address), spaceId]);
  }
  /** An index left behind the space's head, as a consumer that has not caught up leaves it. */
  const forgetIndex = (spaceId: string) => harness.content.orm.em.fork().transactional((em) => dropSpaceFromIndex(em, spaceId));

  it("brings a published space's index to its head at once, then has nothing to do; skips unpublished spaces", async () => {
    const term = word("prewarm");
    const published = await createSpace(harness, organization);
    const unpublished = await createSpace(harness, organization);
    await commitPages(published.id, { Warm: `The ${term} page.` });
    await commitPages(unpublished.id, { Cold: `The ${term} draft.` });
    await untilTitles(published.id, term, ["Warm"]);
    await untilTitles(unpublished.id, term, ["Cold"]);
    await markPublished(published.id);
    await forgetIndex(published.id);
    await forgetIndex(unpublished.id);
    expect(titles((await searchSpace(published.id, term)).pages)).toEqual([]);

    const spaceIds = [published.id, unpublished.id, randomUUID(), "not-an-id"];
    expect(await search.prewarmPublishedSearch({ spaceIds })).toEqual({ updatedSpaces: 1 });
    // Current when the call answers: no waiting on the consumer.
    expect(titles((await searchSpace(published.id, term)).pages)).toEqual(["Warm"]);
    expect(titles((await searchSpace(unpublished.id, term)).pages)).toEqual([]);

    const repeated = await Promise.all([search.prewarmPublishedSearch({ spaceIds }), search.prewarmPublishedSearch({ spaceIds })]);
    expect(repeated).toEqual([{ updatedSpaces: 0 }, { updatedSpaces: 0 }]);
  });

  it("refuses no space and more than 100, naming spaceIds", async () => {
    for (const spaceIds of [[], Array.from({ length: 101 }, () => randomUUID())]) {
      expect(await failure(search.prewarmPublishedSearch({ spaceIds }))).toMatchObject({
        code: "invalid_argument",
        message: "spaceIds: must name 1 to 100 spaces",
      });
    }
  });
});
