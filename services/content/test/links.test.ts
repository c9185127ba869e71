import { LinkRelation, LinkServiceService, LinkStatus, LinkTargetKind, type LinkListing, type LinkUsage } from "@imprint/proto/content/v1/links";
import { PageType } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import {
  eventually,
  testClient,
  createMember,
  createOrganization,
  createOutsider,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  createRevision,
  pngBytes,
} from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, contentRef, newPage, pageChange, type ContentClients } from "./revisions-fixtures.js";

/**
 * Links and backlinks through LinkService: extraction per page version, statuses resolved per
 * revision (broken links appearing and disappearing across commits), file and page backlinks,
 * the status filter, stats and paging, access.
 */
let harness: ContentHarness;
let clients: ContentClients;
let links: PromiseClient<typeof LinkServiceService>;
let org: TestOrganization;
let spaceId: string;

const APP_URL = "https://app.imprint.test";

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  links = testClient(LinkServiceService, harness.contentAddress);
});
afterAll(async () => {
  links?.close();
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
});

const owner = () => org.owner.caller;
const edit = (work: (draftId: string) => Promise<unknown>) => createRevision(clients, owner(), { spaceId }, work);
const createPage = (draftId: string, fields: Parameters<typeof newPage>[0]) => clients.editing.createPage({ caller: owner(), draftId, page: newPage(fields) });
/** Uploads a new file; answers its id. */
const upload = async (draftId: string, name: string) =>
  (await clients.editing.uploadFile({ caller: owner(), draftId, fileId: "", name, contentType: "image/png", content: pngBytes(10, 10) })).file!.id;

const spaceLinks = async (
  options: { status?: LinkStatus; pageToken?: string; pageSize?: number; revisionId?: string; caller?: ReturnType<typeof owner> } = {},
) =>
  (
    await links.listLinks({
      caller: options.caller ?? owner(),
      ref: contentRef(spaceId, options.revisionId),
      status: options.status ?? LinkStatus.LINK_STATUS_UNSPECIFIED,
      page: { pageToken: options.pageToken ?? "", pageSize: options.pageSize ?? 0 },
      appUrl: APP_URL,
    })
  ).listing!;

const pageLinks = async (pageId: string, status = LinkStatus.LINK_STATUS_UNSPECIFIED) =>
  (await links.listPageLinks({ caller: owner(), ref: contentRef(spaceId), pageId, status, page: { pageToken: "", pageSize: 0 }, appUrl: APP_URL })).listing!;

const pageBacklinks = async (pageId: string, page = { pageToken: "", pageSize: 0 }, revisionId = "") =>
  (await links.listPageBacklinks({ caller: owner(), ref: contentRef(spaceId, revisionId), pageId, page })).listing!;

const fileBacklinks = async (fileId: string) =>
  (await links.listFileBacklinks({ caller: owner(), ref: contentRef(spaceId), fileId, page: { pageToken: "", pageSize: 0 } })).listing!;

/** A readable summary of one item: "<status> <relation> <kind>:<target>[#anchor] <- <location titles>". */
function describe_(listing: LinkListing, item: LinkUsage): string {
  const statusName = { [LinkStatus.LINK_STATUS_OK]: "ok", [LinkStatus.LINK_STATUS_BROKEN]: "broken", [LinkStatus.LINK_STATUS_IN_APP]: "in-app" }[
    item.status as 1 | 2 | 3
  ];
  const relation = item.relation === LinkRelation.LINK_RELATION_DEPENDS_ON ? "dependsOn" : "reference";
  const target = item.target!;
  const kind = { [LinkTargetKind.LINK_TARGET_KIND_PAGE]: "page", [LinkTargetKind.LINK_TARGET_KIND_FILE]: "file", [LinkTargetKind.LINK_TARGET_KIND_URL]: "url" }[
    target.kind as 1 | 2 | 3
  ];
  const name = target.kind === LinkTargetKind.LINK_TARGET_KIND_URL ? target.url : target.id;
  const titles = item.locationPageIds.map((id) => listing.pages.find((page) => page.id === id)?.title ?? `?${id}`);
  return `${statusName} ${relation} ${kind}:${name}${target.anchor ? `#${target.anchor}` : ""} <- ${titles.join(", ")}`;
}
const summary = (listing: LinkListing) => listing.items.map((item) => describe_(listing, item));

async function storedExtractions(): Promise<number> {
  const [row] = await harness.content.orm.em
    .fork()
    .execute<{ count: string }[]>(
      `select count(*) as count from page_version_links l join revisions r on r.store_id = l.store_id where r.space_id = ? and r.id = (select revision_id from spaces where id = ?)`,
      [spaceId, spaceId],
    );
  return Number(row!.count);
}

describe("link extraction and status", () => {
  it("lists page links, anchors, file references, images, covers, link pages, in-app and external URLs with their status", async () => {
    let diagram = "";
    let cover = "";
    await edit(async (draftId) => {
      diagram = await upload(draftId, "diagram.png");
      cover = await upload(draftId, "cover.png");
      await createPage(draftId, { pageId: "guide", title: "Guide", markdown: "# Guide\n\n## Intro\n\nText." });
      await createPage(draftId, {
        pageId: "home",
        title: "Home",
        markdown: [
          "See [the guide](/pages/guide) and [its intro](/pages/guide#intro), [this section](#local).",
          "",
          `![Diagram](/files/${diagram})`,
          "",
          `Download [the diagram](/files/${diagram}), read [elsewhere](https://example.com/docs) and [in the app](https://app.imprint.test/o/x/s/y).`,
          "",
          "| a | b |",
          "|---|---|",
          "| [old page](/pages/gone) | [external again](https://example.com/docs) |",
        ].join("\n"),
        cover: { ref: { fileId: cover, url: "" }, yPos: 0 },
      });
      await createPage(draftId, { pageId: "out", title: "Outside", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.org" });
    });

    const listing = await spaceLinks();
    const files = [
      ...(cover < diagram ? [`ok dependsOn file:${cover} <- Home`] : []),
      `ok dependsOn file:${diagram} <- Home`,
      `ok reference file:${diagram} <- Home`,
      ...(cover > diagram ? [`ok dependsOn file:${cover} <- Home`] : []),
    ];
    expect(summary(listing)).toEqual([
      ...files,
      "broken reference page:gone <- Home",
      "ok reference page:guide <- Home",
      "ok reference page:guide#intro <- Home",
      "in-app reference url:https://app.imprint.test/o/x/s/y <- Home",
      "ok reference url:https://example.com/docs <- Home",
      "ok reference url:https://status.example.org <- Outside",
    ]);
    expect(listing.stats).toEqual({ total: 9, broken: 1, brokenInChangeRequest: 0 });
    expect(listing.page).toEqual({ nextPageToken: "", totalCount: 9 });

    // Pages named by the items carry their markdown, without sub-pages; existing files are described.
    const home = listing.pages.find((page) => page.id === "home")!;
    expect(home).toMatchObject({ title: "Home", path: "home", hasMarkdown: true, pages: [] });
    expect(home.markdown).toContain("[the guide](/pages/guide)");
    expect(listing.pages.map((page) => page.id).sort()).toEqual(["guide", "home", "out"]);
    expect(listing.files.map((file) => file.id).sort()).toEqual([cover, diagram].sort());
    expect(listing.space).toMatchObject({ id: spaceId, organizationId: org.organizationId });
  });

  it("makes a link broken when its target page is deleted, and ok again when the page is restored; old revisions keep their answer", async () => {
    await edit(async (draftId) => {
      await createPage(draftId, { pageId: "target", title: "Target", markdown: "Target page." });
      await createPage(draftId, { pageId: "source", title: "Source", markdown: "Go to [the target](/pages/target)." });
    });
    const healthy = await spaceLinks();
    expect(summary(healthy)).toEqual(["ok reference page:target <- Source"]);
    expect((await pageBacklinks("target")).pages.map((page) => page.id)).toEqual(["source"]);

    const afterDelete = await edit((draftId) => clients.editing.deletePage({ caller: owner(), draftId, pageId: "target" }));
    const broken = await spaceLinks();
    expect(summary(broken)).toEqual(["broken reference page:target <- Source"]);
    expect(broken.stats).toMatchObject({ total: 1, broken: 1 });
    expect((await spaceLinks({ status: LinkStatus.LINK_STATUS_BROKEN })).items).toHaveLength(1);
    expect(await errorCode(pageBacklinks("target"))).toBe("not_found");
    // The revision before the deletion still resolves the link.
    expect(summary(await spaceLinks({ revisionId: healthy.revisionId }))).toEqual(["ok reference page:target <- Source"]);

    await edit((draftId) => createPage(draftId, { pageId: "target", title: "Target again", markdown: "Back." }));
    const restored = await spaceLinks();
    expect(summary(restored)).toEqual(["ok reference page:target <- Source"]);
    expect(restored.stats).toMatchObject({ total: 1, broken: 0 });
    expect(summary(await spaceLinks({ revisionId: afterDelete }))).toEqual(["broken reference page:target <- Source"]);

    // Fixing the link instead of the target: the broken item disappears, the new one is ok.
    await edit((draftId) => clients.editing.deletePage({ caller: owner(), draftId, pageId: "target" }));
    expect((await spaceLinks()).stats).toMatchObject({ broken: 1 });
    await edit((draftId) =>
      clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "source", markdown: "See [the web](https://example.com)." }) }),
    );
    const fixed = await spaceLinks();
    expect(summary(fixed)).toEqual(["ok reference url:https://example.com <- Source"]);
    expect(fixed.stats).toMatchObject({ total: 1, broken: 0 });
  });

  it("lists the pages referencing a file (links, images, covers), and breaks them when the file is deleted", async () => {
    let logo = "";
    let unused = "";
    await edit(async (draftId) => {
      logo = await upload(draftId, "logo.png");
      unused = await upload(draftId, "unused.png");
      await createPage(draftId, { pageId: "b-page", title: "B", markdown: `![logo](/files/${logo})` });
      await createPage(draftId, { pageId: "a-page", title: "A", markdown: `[download](/files/${logo})` });
      await createPage(draftId, { pageId: "c-page", title: "C", markdown: "No links.", cover: { ref: { fileId: logo, url: "" }, yPos: 0.5 } });
    });
    const backlinks = await fileBacklinks(logo);
    expect(backlinks.pages.map((page) => page.path)).toEqual(["a", "b", "c"]);
    expect(backlinks.page).toEqual({ nextPageToken: "", totalCount: 3 });
    expect(backlinks.pages[0]).toMatchObject({ id: "a-page", hasMarkdown: true, markdown: `[download](/files/${logo})` });
    expect((await fileBacklinks(unused)).pages).toEqual([]);
    expect(await errorCode(fileBacklinks("nope"))).toBe("not_found");

    await edit((draftId) => clients.editing.deleteFile({ caller: owner(), draftId, fileId: logo }));
    expect(await errorCode(fileBacklinks(logo))).toBe("not_found");
    const broken = await spaceLinks({ status: LinkStatus.LINK_STATUS_BROKEN });
    expect(summary(broken)).toEqual([`broken dependsOn file:${logo} <- B, C`, `broken reference file:${logo} <- A`]);
    expect(broken.files).toEqual([]);
  });

  it("lists one page's links with their own stats, and 404s for a page not in the revision", async () => {
    await edit(async (draftId) => {
      await createPage(draftId, { pageId: "one", title: "One", markdown: "[two](/pages/two) [missing](/pages/missing) [web](https://example.com)" });
      await createPage(draftId, { pageId: "two", title: "Two", markdown: "[one](/pages/one)" });
    });
    const one = await pageLinks("one");
    expect(summary(one)).toEqual(["broken reference page:missing <- One", "ok reference page:two <- One", "ok reference url:https://example.com <- One"]);
    expect(one.stats).toMatchObject({ total: 3, broken: 1 });
    expect(summary(await pageLinks("one", LinkStatus.LINK_STATUS_OK))).toEqual(["ok reference page:two <- One", "ok reference url:https://example.com <- One"]);
    expect((await pageLinks("one", LinkStatus.LINK_STATUS_OK)).stats).toMatchObject({ total: 3, broken: 1 });
    expect(summary(await pageLinks("two"))).toEqual(["ok reference page:one <- Two"]);
    expect(await errorCode(pageLinks("missing"))).toBe("not_found");
    expect(await errorCode(pageLinks("bad id!"))).toBe("not_found");
  });
});

describe("filter, stats and paging", () => {
  it("filters by status, keeps stats over every link, pages with keyset tokens, and refuses bad paging", async () => {
    await edit(async (draftId) => {
      await createPage(draftId, {
        pageId: "many",
        title: "Many",
        markdown: [
          ...Array.from({ length: 7 }, (_, index) => `[external ${index}](https://example.com/${index})`),
          "[gone 1](/pages/gone1) [gone 2](/pages/gone2)",
          "[app](https://app.imprint.test/settings)",
        ].join("\n\n"),
      });
    });
    const all = await spaceLinks();
    expect(all.stats).toEqual({ total: 10, broken: 2, brokenInChangeRequest: 0 });

    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await spaceLinks({ status: LinkStatus.LINK_STATUS_OK, pageSize: 3, pageToken: token });
      expect(page.page!.totalCount).toBe(7);
      expect(page.stats).toEqual({ total: 10, broken: 2, brokenInChangeRequest: 0 });
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((item) => item.target!.url));
      token = page.page!.nextPageToken;
      pages += 1;
    } while (token !== "");
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 7 }, (_, index) => `https://example.com/${index}`));

    expect((await spaceLinks({ status: LinkStatus.LINK_STATUS_IN_APP })).items.map((item) => item.target!.url)).toEqual(["https://app.imprint.test/settings"]);
    expect((await spaceLinks({ status: LinkStatus.LINK_STATUS_BROKEN })).items.map((item) => item.target!.id)).toEqual(["gone1", "gone2"]);

    expect(await failure(spaceLinks({ pageSize: 1001 }))).toMatchObject({ code: "invalid_argument", message: "limit: must be an integer between 1 and 1000" });
    expect(await failure(spaceLinks({ pageToken: "not-a-token" }))).toMatchObject({
      code: "invalid_argument",
      message: "page: not a valid page token for this list",
    });
    const backlinkToken = Buffer.from(JSON.stringify({ l: "page-backlinks", k: ["a", "b"] })).toString("base64url");
    expect(await errorCode(spaceLinks({ pageToken: backlinkToken }))).toBe("invalid_argument");
    expect(await failure(spaceLinks({ status: 9 as LinkStatus }))).toMatchObject({ code: "invalid_argument", message: "status: must be ok, broken or in-app" });
    expect(
      await failure(links.listLinks({ caller: owner(), ref: contentRef(spaceId), status: 0, page: { pageToken: "", pageSize: 0 }, appUrl: "ftp://nope" })),
    ).toMatchObject({ code: "invalid_argument", message: "app_url: must be an absolute http(s) URL" });
  });

  it("pages page backlinks in path order", async () => {
    await edit(async (draftId) => {
      await createPage(draftId, { pageId: "hub", title: "Hub", markdown: "The hub." });
      for (const name of ["e", "a", "d", "b", "c"])
        await createPage(draftId, { pageId: `p-${name}`, title: name.toUpperCase(), markdown: `[hub](/pages/hub)` });
    });
    const first = await pageBacklinks("hub", { pageToken: "", pageSize: 2 });
    expect(first.pages.map((page) => page.path)).toEqual(["a", "b"]);
    expect(first.page!.totalCount).toBe(5);
    const second = await pageBacklinks("hub", { pageToken: first.page!.nextPageToken, pageSize: 2 });
    expect(second.pages.map((page) => page.path)).toEqual(["c", "d"]);
    const third = await pageBacklinks("hub", { pageToken: second.page!.nextPageToken, pageSize: 2 });
    expect(third.pages.map((page) => page.path)).toEqual(["e"]);
    expect(third.page!.nextPageToken).toBe("");
  });
});

describe("popular targets", () => {
  it("describes the first 100 locations of a target by path and counts them all; backlinks page through every one", async () => {
    await edit(async (draftId) => {
      await clients.editing.applyPageOperations({
        caller: owner(),
        draftId,
        operations: [
          { create: newPage({ pageId: "hub", title: "Hub", markdown: "Everyone links here." }) },
          ...Array.from({ length: 150 }, (_, index) => ({
            create: newPage({ pageId: `leaf-${index}`, title: `Leaf ${String(index).padStart(3, "0")}`, markdown: "[hub](/pages/hub)" }),
          })),
        ],
      });
    });
    const listing = await spaceLinks();
    expect(listing.items).toHaveLength(1);
    const [item] = listing.items;
    expect(item!.locationCount).toBe(150);
    expect(item!.locationPageIds).toHaveLength(100);
    expect(item!.locationPageIds.slice(0, 2)).toEqual(["leaf-0", "leaf-1"]);
    expect(listing.pages).toHaveLength(101);

    const seen: string[] = [];
    let pageToken = "";
    do {
      const page = await pageBacklinks("hub", { pageToken, pageSize: 64 });
      expect(page.page!.totalCount).toBe(150);
      seen.push(...page.pages.map((found) => found.id));
      pageToken = page.page!.nextPageToken;
    } while (pageToken !== "");
    expect(seen).toEqual(Array.from({ length: 150 }, (_, index) => `leaf-${index}`));
  });
});

describe("extraction cost", () => {
  it("extracts each page version once, right after the commit, so an edit extracts only the changed page", async () => {
    await edit(async (draftId) => {
      await clients.editing.applyPageOperations({
        caller: owner(),
        draftId,
        operations: Array.from({ length: 40 }, (_, index) => ({
          create: newPage({ pageId: `page-${index}`, title: `Page ${index}`, markdown: `[next](/pages/page-${index + 1})` }),
        })),
      });
    });
    // Extracted after the commit by the revision.created consumer, before anything reads links.
    await eventually(async () => ((await storedExtractions()) === 40 ? true : undefined), 10_000);

    await edit((draftId) =>
      clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "page-3", markdown: "[web](https://example.com)" }) }),
    );
    // One new page version: one more row; the other 39 versions are shared with the parent revision.
    await eventually(async () => ((await storedExtractions()) === 41 ? true : undefined), 10_000);

    const listing = await spaceLinks({ status: LinkStatus.LINK_STATUS_BROKEN });
    expect(summary(listing)).toEqual(["broken reference page:page-40 <- Page 39"]);
    expect(listing.stats).toMatchObject({ total: 40, broken: 1 });
    expect((await pageBacklinks("page-4")).pages).toEqual([]);
    expect((await pageBacklinks("page-5")).pages.map((page) => page.id)).toEqual(["page-4"]);
  });

  it("reads the links of a draft of the caller's, extracting its new versions on demand", async () => {
    await edit((draftId) => createPage(draftId, { pageId: "base", title: "Base", markdown: "Base." }));
    const { draft } = await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "", changeRequestId: "" });
    await createPage(draft!.id, { pageId: "drafted", title: "Drafted", markdown: "[base](/pages/base) [nowhere](/pages/nowhere)" });
    expect(summary(await spaceLinks({ revisionId: draft!.id }))).toEqual(["ok reference page:base <- Drafted", "broken reference page:nowhere <- Drafted"]);
    expect((await spaceLinks()).items).toEqual([]);
    const member = await createMember(harness, org.organizationId, { role: "edit" });
    expect(await errorCode(spaceLinks({ revisionId: draft!.id, caller: member.caller }))).toBe("not_found");
  });
});

describe("purge", () => {
  it("drops a purged space's extracted links with its page versions", async () => {
    await edit((draftId) => createPage(draftId, { pageId: "only", title: "Only", markdown: "[web](https://example.com)" }));
    expect((await spaceLinks()).items).toHaveLength(1);
    const em = harness.content.orm.em.fork();
    const [store] = await em.execute<{ store_id: string }[]>("select store_id from revisions where space_id = ? limit 1", [spaceId]);
    const count = async () =>
      Number((await em.execute<{ count: string }[]>("select count(*) as count from page_version_links where store_id = ?", [store!.store_id]))[0]!.count);
    expect(await count()).toBe(1);
    await harness.spaces.deleteSpace({ caller: owner(), spaceId });
    harness.clock.advanceDays(8);
    await harness.spaces.purgeDeletedSpaces({});
    expect(await count()).toBe(0);
  });
});

describe("access", () => {
  it("answers not_found to another organization's members and outsiders on every operation, and serves readers", async () => {
    let fileId = "";
    await edit(async (draftId) => {
      fileId = await upload(draftId, "f.png");
      await createPage(draftId, { pageId: "p", title: "P", markdown: `[self](/pages/p) ![f](/files/${fileId})` });
    });
    const other = await createOrganization(harness);
    const outsider = await createOutsider(harness);
    for (const caller of [other.owner.caller, outsider.caller]) {
      const ref = contentRef(spaceId);
      const page = { pageToken: "", pageSize: 0 };
      expect(await errorCode(links.listLinks({ caller, ref, status: 0, page, appUrl: "" }))).toBe("not_found");
      expect(await errorCode(links.listPageLinks({ caller, ref, pageId: "p", status: 0, page, appUrl: "" }))).toBe("not_found");
      expect(await errorCode(links.listPageBacklinks({ caller, ref, pageId: "p", page }))).toBe("not_found");
      expect(await errorCode(links.listFileBacklinks({ caller, ref, fileId, page }))).toBe("not_found");
    }
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect((await spaceLinks({ caller: reader.caller })).items).toHaveLength(2);
    expect(await errorCode(links.listLinks({ caller: undefined, ref: contentRef(spaceId), status: 0, page: { pageToken: "", pageSize: 0 }, appUrl: "" }))).toBe(
      "unauthenticated",
    );
  });
});
