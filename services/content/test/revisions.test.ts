import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  patient,
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
import { DocumentFormat, PageType, type Page } from "@imprint/proto/content/v1/revisions";
import type { PageOperation } from "@imprint/proto/content/v1/editing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { asDocument, asMarkdown, contentClients, contentRef, newPage, pageChange, readAll, type ContentClients } from "./revisions-fixtures.js";

/** Reads of revisions and pages, and what the revision store writes and shares. */
let harness: ContentHarness;
let clients: ContentClients;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
});
afterAll(async () => {
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
});

const owner = () => org.owner.caller;
const edit = (work: (draftId: string) => Promise<unknown>) => createRevision(clients, owner(), { spaceId }, work);
const create = (draftId: string, fields: Parameters<typeof newPage>[0]) => clients.editing.createPage({ caller: owner(), draftId, page: newPage(fields) });
const byPath = (path: string, pageOptions = asDocument, revisionId = "", caller = owner()) =>
  clients.revisions.getPageByPath({ caller, ref: contentRef(spaceId, revisionId), options: readAll, path, pageOptions });
const byId = (pageId: string, pageOptions = asDocument, revisionId = "") =>
  clients.revisions.getPage({ caller: owner(), ref: contentRef(spaceId, revisionId), options: readAll, pageId, pageOptions });
const paths = (pages: Page[]): string[] => pages.flatMap((page) => [page.path, ...paths(page.pages)]);

/** Rows inserted or updated since `xid` in the content database, by table. */
async function rowsWrittenSince(xid: string): Promise<Record<string, number>> {
  const tables = ["revisions", "tree_nodes", "page_versions", "content_bodies", "file_versions", "reusable_content_versions", "spaces", "outbox_events"];
  const em = harness.content.orm.em.fork();
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from "${table}" where xmin::text::bigint > ?`, [Number(xid)]);
    if (Number(row!.count) > 0) counts[table] = Number(row!.count);
  }
  return counts;
}

async function currentXid(): Promise<string> {
  const [row] = await harness.content.orm.em.fork().execute<{ xid: string }[]>("select (pg_current_xact_id()::text::bigint % 4294967296) as xid");
  return row!.xid;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);

describe("reading content", () => {
  it("reads the current revision: the page tree with bodies, files, reusable contents and variables", async () => {
    const initial = (await harness.spaces.getSpace({ caller: owner(), spaceId, shareKey: "" })).space!.revisionId;
    const revisionId = await edit(async (draftId) => {
      const guide = (await create(draftId, { title: "Guide", emoji: "📘", markdown: "# Guide\n\nHello **world**" })).page!;
      await create(draftId, { title: "Setup", parentPageId: guide.id, markdown: "Steps" });
      const group = (await create(draftId, { title: "Reference", type: PageType.PAGE_TYPE_GROUP })).page!;
      await create(draftId, { title: "API", parentPageId: group.id });
      await create(draftId, { title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" });
      await clients.editing.uploadFile({ caller: owner(), draftId, fileId: "", name: "logo.png", contentType: "image/png", content: pngBytes(4, 3) });
      await clients.editing.setVariables({ caller: owner(), draftId, variables: { product: "Imprint" } });
      await clients.editing.setReusableContent({ caller: owner(), draftId, reusableContentId: "", title: "Footer", markdown: "Bye", delete: false });
    });
    const revision = (await clients.revisions.getRevision({ caller: owner(), ref: contentRef(spaceId), options: readAll })).revision!;
    expect(revision).toMatchObject({
      id: revisionId,
      spaceId,
      parents: [initial],
      type: "edits",
      message: "edit",
      draft: false,
      variables: { product: "Imprint" },
    });
    expect(paths(revision.pages)).toEqual(["guide", "guide/setup", "reference", "reference/api", "status"]);
    const guide = revision.pages[0]!;
    expect(guide).toMatchObject({ title: "Guide", emoji: "📘", type: PageType.PAGE_TYPE_DOCUMENT, markdown: "# Guide\n\nHello **world**", hasMarkdown: true });
    expect(guide.documentId).toMatch(/^[0-9a-f]{64}$/);
    expect(revision.pages[1]).toMatchObject({ type: PageType.PAGE_TYPE_GROUP, hasMarkdown: false, documentId: "" });
    expect(revision.pages[2]).toMatchObject({ type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" });
    expect(revision.files.map((file) => [file.name, file.contentType, file.size, file.width, file.height])).toEqual([["logo.png", "image/png", "33", 4, 3]]);
    expect(revision.reusableContents.map((item) => item.title)).toEqual(["Footer"]);
  });

  it("reads a page by id and by path, as a document or as markdown, with its sub-pages", async () => {
    let guideId = "";
    await edit(async (draftId) => {
      guideId = (await create(draftId, { title: "Guide", markdown: "# Welcome\n\n- one\n- two" })).page!.id;
      const setup = (await create(draftId, { title: "Setup", parentPageId: guideId, markdown: "```sh\nnpm i\n```" })).page!;
      await create(draftId, { title: "Linux", parentPageId: setup.id });
    });
    const page = (await byId(guideId)).page!;
    expect(page.hasDocument).toBe(true);
    const document = JSON.parse(page.documentJson) as { object: string; nodes: { type: string }[] };
    expect(document.object).toBe("document");
    expect(document.nodes.map((node) => node.type)).toEqual(["heading-1", "list-unordered"]);
    expect(paths(page.pages)).toEqual(["guide/setup", "guide/setup/linux"]);

    const setup = (await byPath("guide/setup", asMarkdown)).page!;
    expect(setup).toMatchObject({ title: "Setup", path: "guide/setup", markdown: "```sh\nnpm i\n```", hasMarkdown: true, hasDocument: false });
    expect((await byPath("/guide/setup/")).page!.id).toBe(setup.id);
    expect((await byPath("guide/setup/linux")).page!.hasDocument).toBe(true);
    expect(await errorCode(byPath("guide/missing"))).toBe("not_found");
    expect(await errorCode(byPath(""))).toBe("not_found");
    expect(await errorCode(byId("nope"))).toBe("not_found");
    expect((await failure(byPath("a/".repeat(1100)))).message).toMatch(/^path: /);
    expect(
      await errorCode(
        clients.revisions.getPage({
          caller: owner(),
          ref: contentRef(spaceId),
          options: readAll,
          pageId: guideId,
          pageOptions: { format: 7 as DocumentFormat, evaluated: false },
        }),
      ),
    ).toBe("invalid_argument");
  });

  it("evaluates variable expressions only when asked", async () => {
    await edit(async (draftId) => {
      await clients.editing.setVariables({ caller: owner(), draftId, variables: { product: "Imprint" } });
      await create(draftId, { title: "Vars", markdown: "Use {{ space.vars.product }} {{ page.vars.release }}", variables: { release: "2.0" } });
    });
    expect((await byPath("vars", asMarkdown)).page!.markdown).toBe("Use {{ space.vars.product }} {{ page.vars.release }}");
    expect((await byPath("vars", { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: true })).page!.markdown).toBe("Use Imprint 2.0");
    const evaluated = JSON.parse((await byPath("vars", { format: DocumentFormat.DOCUMENT_FORMAT_DOCUMENT, evaluated: true })).page!.documentJson) as {
      nodes: { nodes: { leaves: { text: string }[] }[] }[];
    };
    expect(evaluated.nodes[0]!.nodes[0]!.leaves.map((leaf) => leaf.text).join("")).toBe("Use Imprint 2.0");
  });

  it("reads a pinned revision while the space moves on", async () => {
    const first = await edit((draftId) => create(draftId, { pageId: "home", title: "Home", markdown: "v1" }));
    await edit((draftId) => clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "home", markdown: "v2" }) }));
    expect((await byId("home", asMarkdown)).page!.markdown).toBe("v2");
    expect((await byId("home", asMarkdown, first)).page!.markdown).toBe("v1");
    const other = await createSpace(harness, org);
    // A revision id of another space does not resolve in this one.
    const otherRevision = (await harness.spaces.getSpace({ caller: owner(), spaceId: other.id, shareKey: "" })).space!.revisionId;
    expect(await errorCode(byId("home", asMarkdown, otherRevision))).toBe("not_found");
    expect(await errorCode(byId("home", asMarkdown, "not-a-revision"))).toBe("not_found");
  });

  it("leaves the pages out when the caller already holds the revision, after checking access", async () => {
    const first = await edit((draftId) => create(draftId, { title: "One" }));
    const list = (knownRevisionId: string | undefined, caller = owner()) =>
      clients.revisions.listPages({ caller, ref: contentRef(spaceId), options: readAll, knownRevisionId });
    expect(await list(first)).toMatchObject({ revisionId: first, notModified: true, pages: [] });
    const second = await edit((draftId) => create(draftId, { title: "Two" }));
    const changed = await list(first);
    expect(changed).toMatchObject({ revisionId: second, notModified: false });
    expect(paths(changed.pages)).toEqual(["one", "two"]);
    const other = await createOrganization(harness);
    expect(await errorCode(list(second, other.owner.caller))).toBe("not_found");
  });

  it("leaves a page out when the caller already holds it in that revision, after checking access; never for a draft", async () => {
    const first = await edit((draftId) => create(draftId, { pageId: "home", title: "Home", markdown: "v1" }));
    const read = (knownRevisionId: string, caller = owner(), revisionId = "") =>
      Promise.all([
        clients.revisions.getPageByPath({
          caller,
          ref: contentRef(spaceId, revisionId),
          options: readAll,
          path: "home",
          pageOptions: asMarkdown,
          knownRevisionId,
        }),
        clients.revisions.getPage({ caller, ref: contentRef(spaceId, revisionId), options: readAll, pageId: "home", pageOptions: asMarkdown, knownRevisionId }),
      ]);
    for (const answer of await read(first)) expect(answer).toMatchObject({ revisionId: first, notModified: true, page: undefined });
    const second = await edit((draftId) => clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "home", markdown: "v2" }) }));
    for (const answer of await read(first)) expect(answer).toMatchObject({ revisionId: second, notModified: false, page: { markdown: "v2" } });
    const other = await createOrganization(harness);
    const known = { caller: other.owner.caller, ref: contentRef(spaceId), options: readAll, pageOptions: asMarkdown, knownRevisionId: second };
    expect(await errorCode(clients.revisions.getPageByPath({ ...known, path: "home" }))).toBe("not_found");
    expect(await errorCode(clients.revisions.getPage({ ...known, pageId: "home" }))).toBe("not_found");
    // A draft changes under its id: its reads are always answered in full.
    const { draft } = await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "", changeRequestId: "" });
    for (const answer of await read(draft!.id, owner(), draft!.id))
      expect(answer).toMatchObject({ revisionId: draft!.id, notModified: false, page: { markdown: "v2" } });
    await clients.editing.updatePage({ caller: owner(), draftId: draft!.id, page: pageChange({ pageId: "home", markdown: "v3" }) });
    for (const answer of await read(draft!.id, owner(), draft!.id)) expect(answer).toMatchObject({ notModified: false, page: { markdown: "v3" } });
    const listed = await clients.revisions.listPages({ caller: owner(), ref: contentRef(spaceId, draft!.id), options: readAll, knownRevisionId: draft!.id });
    expect(listed.notModified).toBe(false);
  });

  it("answers not_found to callers who cannot see the space, and for change requests (not there yet)", async () => {
    await edit((draftId) => create(draftId, { title: "Secret" }));
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const outsider = await createOutsider(harness);
    const other = await createOrganization(harness);
    expect((await byPath("secret", asDocument, "", reader.caller)).page!.title).toBe("Secret");
    expect(await errorCode(byPath("secret", asDocument, "", outsider.caller))).toBe("not_found");
    expect(await errorCode(byPath("secret", asDocument, "", other.owner.caller))).toBe("not_found");
    expect(await errorCode(clients.revisions.listPages({ caller: other.owner.caller, ref: contentRef(spaceId), options: readAll }))).toBe("not_found");
    expect(await errorCode(clients.revisions.listPages({ caller: owner(), ref: { spaceId, changeRequestId: "1", revisionId: "" }, options: readAll }))).toBe(
      "not_found",
    );
    expect(await errorCode(clients.revisions.listPages({ caller: owner(), ref: undefined, options: readAll }))).toBe("invalid_argument");
  });
});

describe("structural sharing", () => {
  /**
   * 10,000 pages: 100 sections of 99 pages, through the editing API into one draft, 1,000 pages a
   * call (one call for all of them can outlast a deadline on a busy machine), with progress.
   */
  async function seedBigSpace(): Promise<void> {
    const operations: PageOperation[] = [];
    for (let section = 0; section < 100; section++) {
      operations.push({ create: newPage({ pageId: `s${section}`, title: `Section ${section}`, markdown: `# Section ${section}` }) });
      for (let page = 0; page < 99; page++) {
        operations.push({
          create: newPage({
            pageId: `s${section}p${page}`,
            parentPageId: `s${section}`,
            title: `Page ${page}`,
            markdown: `Body of page ${page} in section ${section}.`,
          }),
        });
      }
    }
    await edit(async (draftId) => {
      for (let start = 0; start < operations.length; start += 1_000) {
        await clients.editing.applyPageOperations({ caller: owner(), draftId, operations: operations.slice(start, start + 1_000) });
        console.log(`seeding the 10,000-page space: ${Math.min(start + 1_000, operations.length)} pages`);
      }
    });
  }

  it(
    "a one-page edit in a 10,000-page space writes fewer than 20 rows; a duplicate copies none",
    async () => {
      await seedBigSpace();
      expect((await byPath("section-42/page-7", asMarkdown)).page!.markdown).toBe("Body of page 7 in section 42.");

      const before = await currentXid();
      await edit((draftId) => clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "s42p7", markdown: "Changed." }) }));
      const written = await rowsWrittenSince(before);
      // One body, one page version, one node per tree level, the revision, the space's head, the event.
      expect(written.page_versions).toBe(1);
      expect(written.content_bodies).toBe(1);
      expect(written.tree_nodes).toBeLessThanOrEqual(4);
      expect(written.revisions).toBe(1);
      expect(total(written)).toBeLessThan(20);
      expect((await byPath("section-42/page-7", asMarkdown)).page!.markdown).toBe("Changed.");

      const beforeDuplicate = await currentXid();
      const copy = (await harness.spaces.duplicateSpace({ caller: owner(), spaceId })).space!;
      const duplicated = await rowsWrittenSince(beforeDuplicate);
      expect(duplicated.page_versions ?? 0).toBe(0);
      expect(duplicated.content_bodies ?? 0).toBe(0);
      expect(duplicated.tree_nodes ?? 0).toBe(0);
      expect(duplicated.revisions).toBe(1);
      const copied = await clients.revisions.getPageByPath({
        caller: owner(),
        ref: contentRef(copy.id),
        options: readAll,
        path: "section-42/page-7",
        pageOptions: asMarkdown,
      });
      expect(copied.page!.markdown).toBe("Changed.");
      const listed = await clients.revisions.listPages({ caller: owner(), ref: contentRef(copy.id), options: readAll });
      expect(paths(listed.pages)).toHaveLength(10_000);
    },
    patient(120_000),
  );

  it(
    "a duplicate evolves on its own, and keeps its content when the original is purged",
    async () => {
      await edit(async (draftId) => {
        await create(draftId, { pageId: "a", title: "A", markdown: "shared" });
        await create(draftId, { pageId: "b", title: "B", markdown: "also shared" });
        await clients.editing.uploadFile({ caller: owner(), draftId, fileId: "", name: "logo.png", contentType: "image/png", content: pngBytes(9, 9) });
      });
      const copy = (await harness.spaces.duplicateSpace({ caller: owner(), spaceId })).space!;
      await createRevision(clients, owner(), { spaceId: copy.id }, (draftId) =>
        clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId: "a", markdown: "copy only" }) }),
      );
      expect((await byId("a", asMarkdown)).page!.markdown).toBe("shared");

      await harness.spaces.deleteSpace({ caller: owner(), spaceId });
      harness.clock.advanceDays(8);
      await harness.spaces.purgeDeletedSpaces({});
      const readCopy = (pageId: string) =>
        clients.revisions.getPage({ caller: owner(), ref: contentRef(copy.id), options: readAll, pageId, pageOptions: asMarkdown });
      expect((await readCopy("a")).page!.markdown).toBe("copy only");
      expect((await readCopy("b")).page!.markdown).toBe("also shared");
      const files = await clients.revisions.listFiles({ caller: owner(), ref: contentRef(copy.id), options: readAll, page: undefined });
      expect(files.files.map((file) => file.name)).toEqual(["logo.png"]);

      // Purging the copy too leaves nothing of the store behind.
      const [store] = await harness.content.orm.em
        .fork()
        .execute<{ store_id: string }[]>("select store_id from revisions where space_id = ? limit 1", [copy.id]);
      await harness.spaces.deleteSpace({ caller: owner(), spaceId: copy.id });
      harness.clock.advanceDays(8);
      await harness.spaces.purgeDeletedSpaces({});
      for (const table of ["revisions", "tree_nodes", "page_versions", "content_bodies", "file_versions"]) {
        const [row] = await harness.content.orm.em
          .fork()
          .execute<{ count: string }[]>(`select count(*) as count from "${table}" where store_id = ?`, [store!.store_id]);
        expect(Number(row!.count), table).toBe(0);
      }
    },
    patient(60_000),
  );
});
