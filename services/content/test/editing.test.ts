import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { UpdatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType, type Page } from "@imprint/proto/content/v1/revisions";
import {
  eventually,
  createMember,
  createOrganization,
  createOutsider,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  readEvents,
  createRevision,
} from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, contentRef, newPage, pageChange, readAll, type ContentClients } from "./revisions-fixtures.js";

/** The internal editing API: drafts, page operations, validation, commits and their compare-and-set. */
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
const open = async () => (await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "", changeRequestId: "" })).draft!;
const create = (draftId: string, fields: Parameters<typeof newPage>[0]) => clients.editing.createPage({ caller: owner(), draftId, page: newPage(fields) });
const commit = (draftId: string, moveHead = true, expectedHeadRevisionId = "") =>
  clients.editing.commitDraft({ caller: owner(), draftId, message: "test", moveHead, expectedHeadRevisionId });
const head = async () => (await harness.spaces.getSpace({ caller: owner(), spaceId, shareKey: "" })).space!.revisionId;
const tree = async (revisionId = "") => (await clients.revisions.listPages({ caller: owner(), ref: contentRef(spaceId, revisionId), options: readAll })).pages;
const outline = (pages: Page[]): unknown[] => pages.map((page) => (page.pages.length > 0 ? [page.path, outline(page.pages)] : page.path));

describe("drafts and commits", () => {
  it("opens a draft on the current revision, builds a page tree and commits it as the new current revision", async () => {
    const before = await head();
    const draft = await open();
    expect(draft).toMatchObject({ spaceId, parentRevisionId: before, committed: false });

    const guide = (await create(draft.id, { title: "Getting Started", markdown: "# Welcome" })).page!;
    const install = (await create(draft.id, { title: "Install", parentPageId: guide.id })).page!;
    const again = (await create(draft.id, { title: "Getting started!" })).page!;
    expect([guide.slug, guide.path]).toEqual(["getting-started", "getting-started"]);
    expect(install.path).toBe("getting-started/install");
    expect(again.slug).toBe("getting-started-1");
    // The committed content does not change while the draft is open.
    expect(await tree()).toEqual([]);

    const committed = await commit(draft.id);
    expect(committed).toEqual({ revisionId: draft.id, parents: [before], movedHead: true });
    expect(await head()).toBe(draft.id);
    expect(outline(await tree())).toEqual([["getting-started", ["getting-started/install"]], "getting-started-1"]);
    expect((await clients.editing.getDraft({ caller: owner(), draftId: draft.id })).draft!.committed).toBe(true);
    expect(await errorCode(create(draft.id, { title: "Late" }))).toBe("failed_precondition");
  });

  it("commits without moving the head: the revision exists but the space keeps its current one", async () => {
    const before = await head();
    const draft = await open();
    await create(draft.id, { title: "Side" });
    expect((await commit(draft.id, false)).movedHead).toBe(false);
    expect(await head()).toBe(before);
    expect(outline(await tree(draft.id))).toEqual(["side"]);
    expect(await tree()).toEqual([]);
  });

  it("two commits from the same parent: exactly one moves the head, the other gets conflict and loses nothing", async () => {
    const first = await open();
    const second = await open();
    await create(first.id, { title: "From first" });
    await create(second.id, { title: "From second" });
    const results = await Promise.allSettled([commit(first.id), commit(second.id)]);
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0]!.reason as { code: string }).code).toBe("conflict");

    const winner = results[0].status === "fulfilled" ? first : second;
    const loser = winner === first ? second : first;
    expect(await head()).toBe(winner.id);
    // The losing draft is still open with its page: it can be committed beside the head.
    expect((await clients.editing.getDraft({ caller: owner(), draftId: loser.id })).draft!.committed).toBe(false);
    expect((await commit(loser.id, false)).movedHead).toBe(false);
    expect(outline(await tree(loser.id))).toEqual([loser === first ? "from-first" : "from-second"]);
  });

  it("refuses to move the head from an expected revision that is no longer current", async () => {
    const stale = await head();
    await createRevision(clients, owner(), { spaceId }, (draftId) => create(draftId, { title: "One" }));
    const draft = await open();
    await create(draft.id, { title: "Two" });
    expect(await errorCode(commit(draft.id, true, stale))).toBe("conflict");
    expect((await commit(draft.id, true)).movedHead).toBe(true);
  });

  it("records revision.created with the space, the parents and whether the head moved", async () => {
    const since = new Date();
    const before = await head();
    const moved = await createRevision(clients, owner(), { spaceId }, (draftId) => create(draftId, { title: "A" }));
    const draft = await open();
    await commit(draft.id, false);
    // Only this test's two commits (the space's first revision may be published after `since` too).
    const ours = new Set([moved, draft.id]);
    const events = await eventually(async () => {
      const found = (await readEvents("content", { since, organizationId: org.organizationId })).filter(
        (event) => event.type === "revision.created" && ours.has(event.payload.revisionId as string),
      );
      return found.length === 2 ? found : undefined;
    }, 10_000);
    const payloads = events.map((event) => event.payload);
    expect(payloads).toEqual([
      { spaceId, revisionId: moved, parents: [before], movedHead: true },
      { spaceId, revisionId: draft.id, parents: [moved], movedHead: false },
    ]);
    expect(events.find((event) => event.payload.revisionId === moved)!.actor).toEqual({ userId: org.owner.userId });
  });

  it("opens a draft from an older revision and discards drafts", async () => {
    const first = await createRevision(clients, owner(), { spaceId }, (draftId) => create(draftId, { title: "Old" }));
    await createRevision(clients, owner(), { spaceId }, async (draftId) => create(draftId, { title: "New" }));
    const fromOld = (await clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: first, changeRequestId: "" })).draft!;
    expect(outline(await tree(fromOld.id))).toEqual(["old"]);
    await clients.editing.discardDraft({ caller: owner(), draftId: fromOld.id });
    await clients.editing.discardDraft({ caller: owner(), draftId: fromOld.id });
    expect(await errorCode(clients.editing.getDraft({ caller: owner(), draftId: fromOld.id }))).toBe("not_found");
    expect(
      await errorCode(clients.editing.openDraft({ caller: owner(), spaceId, parentRevisionId: "00000000-0000-4000-8000-000000000000", changeRequestId: "" })),
    ).toBe("not_found");
  });
});

describe("page operations", () => {
  it("updates only the fields given; an update that changes nothing keeps the page as it was", async () => {
    const draft = await open();
    const page = (await create(draft.id, { title: "Page", emoji: "📘", description: "first", markdown: "Body" })).page!;
    const updated = (
      await clients.editing.updatePage({
        caller: owner(),
        draftId: draft.id,
        page: pageChange({ pageId: page.id, title: "Renamed", hidden: true, layout: { width: "wide", outline: false } }),
      })
    ).page!;
    expect(updated).toMatchObject({ title: "Renamed", emoji: "📘", description: "first", hidden: true, slug: "page" });
    expect(updated.layout).toMatchObject({ width: "wide", outline: false, title: true, cover: true });
    const unchanged = (await clients.editing.updatePage({ caller: owner(), draftId: draft.id, page: pageChange({ pageId: page.id, title: "Renamed" }) })).page!;
    expect(unchanged.updatedAt).toEqual(updated.updatedAt);

    const slugged = (await clients.editing.updatePage({ caller: owner(), draftId: draft.id, page: pageChange({ pageId: page.id, slug: "renamed" }) })).page!;
    expect(slugged.path).toBe("renamed");
    await commit(draft.id);
    const read = await clients.revisions.getPageByPath({
      caller: owner(),
      ref: contentRef(spaceId),
      options: readAll,
      path: "renamed",
      pageOptions: undefined,
    });
    expect(read.page!.id).toBe(page.id);
  });

  it("changes exactly the fields its update mask names; a named empty field clears", async () => {
    const draft = await open();
    const page = (await create(draft.id, { title: "Masked", emoji: "📘", description: "first", markdown: "Body" })).page!;
    const update = (fields: Partial<UpdatePageInput>, updateMask: string[]) =>
      clients.editing.updatePage({ caller: owner(), draftId: draft.id, page: UpdatePageInput.fromPartial({ pageId: page.id, ...fields, updateMask }) });

    expect(await failure(update({ title: "Any" }, ["title", "parent_page_id"]))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^update_mask: unknown field "parent_page_id"/) as unknown,
    });
    expect(await failure(update({}, []))).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^update_mask: /) as unknown });
    const batch = await failure(
      clients.editing.applyPageOperations({
        caller: owner(),
        draftId: draft.id,
        operations: [{ update: UpdatePageInput.fromPartial({ pageId: page.id, title: "Any", updateMask: ["layout"] }) }],
      }),
    );
    expect(batch).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^operations\[0\]\.update\.update_mask: unknown field "layout"/) as unknown,
    });

    const covered = (
      await update({ cover: { ref: { fileId: "", url: "https://example.com/cover.png" }, yPos: 0 }, variables: { values: { product: "Imprint" } } }, [
        "cover",
        "variables",
      ])
    ).page!;
    expect(covered).toMatchObject({ cover: { ref: { url: "https://example.com/cover.png" } }, variables: { product: "Imprint" } });

    // Named and empty: cleared. Beside them, unnamed values (an empty title, hidden) are ignored.
    const cleared = (await update({ title: "", hidden: true, layout: { width: "wide" } }, ["emoji", "description", "cover", "variables", "layout.outline"]))
      .page!;
    expect(cleared).toMatchObject({ title: "Masked", emoji: "", description: "", hidden: false, cover: undefined, variables: {} });
    expect(cleared.layout).toMatchObject({ width: "default", outline: false, title: true });
  });

  it("orders siblings by position and moves pages before, after and under others", async () => {
    const draft = await open();
    const a = (await create(draft.id, { title: "A" })).page!;
    const b = (await create(draft.id, { title: "B" })).page!;
    const c = (await create(draft.id, { title: "C", position: { beforePageId: a.id, afterPageId: "" } })).page!;
    const d = (await create(draft.id, { title: "D", position: { beforePageId: "", afterPageId: a.id } })).page!;
    expect(outline(await tree(draft.id))).toEqual(["c", "a", "d", "b"]);

    await clients.editing.movePage({
      caller: owner(),
      draftId: draft.id,
      move: { pageId: c.id, parentPageId: "", position: { beforePageId: "", afterPageId: b.id } },
    });
    expect(outline(await tree(draft.id))).toEqual(["a", "d", "b", "c"]);
    const moved = (await clients.editing.movePage({ caller: owner(), draftId: draft.id, move: { pageId: d.id, parentPageId: b.id, position: undefined } }))
      .page!;
    expect(moved.path).toBe("b/d");
    expect(outline(await tree(draft.id))).toEqual(["a", ["b", ["b/d"]], "c"]);

    const underItself = await failure(
      clients.editing.movePage({ caller: owner(), draftId: draft.id, move: { pageId: b.id, parentPageId: d.id, position: undefined } }),
    );
    expect(underItself).toMatchObject({ code: "invalid_argument" });
    expect(underItself.message).toMatch(/^parent_page_id: /);
  });

  it("a move onto a sibling's slug is refused", async () => {
    const draft = await open();
    const parent = (await create(draft.id, { title: "Parent" })).page!;
    await create(draft.id, { title: "Same", parentPageId: parent.id });
    const same = (await create(draft.id, { title: "Same" })).page!;
    const refused = await failure(
      clients.editing.movePage({ caller: owner(), draftId: draft.id, move: { pageId: same.id, parentPageId: parent.id, position: undefined } }),
    );
    expect(refused.code).toBe("already_exists");
  });

  it("deletes a page with all its sub-pages", async () => {
    const draft = await open();
    const top = (await create(draft.id, { title: "Top" })).page!;
    const child = (await create(draft.id, { title: "Child", parentPageId: top.id })).page!;
    await create(draft.id, { title: "Grandchild", parentPageId: child.id });
    await create(draft.id, { title: "Other" });
    expect((await clients.editing.deletePage({ caller: owner(), draftId: draft.id, pageId: top.id })).deletedPages).toBe(3);
    expect(outline(await tree(draft.id))).toEqual(["other"]);
    // The slug is free again.
    expect((await create(draft.id, { title: "Top" })).page!.slug).toBe("top");
    expect(await errorCode(clients.editing.deletePage({ caller: owner(), draftId: draft.id, pageId: child.id }))).toBe("not_found");
  });

  it("groups live at the top level, links have a target and no sub-pages", async () => {
    const draft = await open();
    const group = (await create(draft.id, { title: "Guides", type: PageType.PAGE_TYPE_GROUP })).page!;
    const link = (await create(draft.id, { title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" })).page!;
    expect([group.type, link.type, link.href]).toEqual([PageType.PAGE_TYPE_GROUP, PageType.PAGE_TYPE_LINK, "https://status.example.com"]);
    expect((await failure(create(draft.id, { title: "Nested", type: PageType.PAGE_TYPE_GROUP, parentPageId: group.id }))).message).toMatch(/^parent_page_id: /);
    expect((await failure(create(draft.id, { title: "Under link", parentPageId: link.id }))).message).toMatch(/^parent_page_id: /);
    expect((await failure(create(draft.id, { title: "No target", type: PageType.PAGE_TYPE_LINK }))).message).toMatch(/^href: /);
  });

  it("answers invalid_argument naming the field for every bad input", async () => {
    const draft = await open();
    const page = (await create(draft.id, { title: "Existing", slug: "existing" })).page!;
    const cases: [Parameters<typeof newPage>[0], RegExp][] = [
      [{ title: "" }, /^title: must be 1 to 255 characters/],
      [{ title: "x".repeat(256) }, /^title: /],
      [{ title: "T", slug: "has/slash" }, /^slug: /],
      [{ title: "T", emoji: "x".repeat(51) }, /^emoji: must be at most 50/],
      [{ title: "T", description: "x".repeat(1001) }, /^description: /],
      [{ title: "T", layout: { width: "huge" } }, /^layout\.width: must be one of default, wide/],
      [{ title: "T", cover: { ref: { fileId: "", url: "" }, yPos: 0 } }, /^cover\.ref: /],
      [{ title: "T", variables: { "1bad": "x" } }, /^variables\.1bad: /],
      [{ title: "T", pageId: "no spaces allowed" }, /^page_id: /],
      [{ title: "T", position: { beforePageId: page.id, afterPageId: page.id } }, /^position: /],
      [{ title: "T", position: { beforePageId: "unknown", afterPageId: "" } }, /^position\.before_page_id: /],
      [{ title: "T", markdown: "x".repeat(2 * 1024 * 1024 + 1) }, /^markdown: must be at most 2 MiB/],
    ];
    for (const [fields, message] of cases) {
      const error = await failure(create(draft.id, fields));
      expect(error.code, JSON.stringify(fields).slice(0, 80)).toBe("invalid_argument");
      expect(error.message).toMatch(message);
    }
    expect(await failure(create(draft.id, { title: "T", parentPageId: "missing" }))).toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/^parent_page_id: /) as unknown,
    });
    expect(await failure(create(draft.id, { title: "T", slug: "existing" }))).toMatchObject({
      code: "already_exists",
      message: expect.stringMatching(/^slug: /) as unknown,
    });
    expect(await failure(create(draft.id, { title: "T", pageId: page.id }))).toMatchObject({
      code: "already_exists",
      message: expect.stringMatching(/^page_id: /) as unknown,
    });
    expect(
      (await failure(clients.editing.updatePage({ caller: owner(), draftId: draft.id, page: pageChange({ pageId: page.id, href: "https://x.dev" }) }))).message,
    ).toMatch(/^href: /);
    expect(
      (
        await failure(
          clients.editing.commitDraft({ caller: owner(), draftId: draft.id, message: "m".repeat(1001), moveHead: true, expectedHeadRevisionId: "" }),
        )
      ).message,
    ).toMatch(/^message: /);
  });

  it("applies a batch atomically; a failing operation names its index and nothing is applied", async () => {
    const draft = await open();
    const applied = await clients.editing.applyPageOperations({
      caller: owner(),
      draftId: draft.id,
      operations: [
        { create: newPage({ pageId: "intro", title: "Intro" }) },
        { create: newPage({ pageId: "setup", title: "Setup", parentPageId: "intro" }) },
        { update: pageChange({ pageId: "intro", title: "Introduction" }) },
        { move: { pageId: "setup", parentPageId: "", position: { beforePageId: "intro", afterPageId: "" } } },
      ],
    });
    expect(applied.pages.map((page) => [page.id, page.title, page.path])).toEqual([
      ["intro", "Introduction", "intro"],
      ["setup", "Setup", "setup"],
      ["intro", "Introduction", "intro"],
      ["setup", "Setup", "setup"],
    ]);
    const failed = await failure(
      clients.editing.applyPageOperations({
        caller: owner(),
        draftId: draft.id,
        operations: [{ create: newPage({ title: "Kept?" }) }, { delete: { pageId: "intro" } }, { update: pageChange({ pageId: "intro", title: "" }) }],
      }),
    );
    expect(failed.code).toBe("invalid_argument");
    expect(failed.message).toMatch(/^operations\[2\]\.update\.title: /);
    expect(outline(await tree(draft.id))).toEqual(["setup", "intro"]);
  });
});

describe("variables and reusable contents", () => {
  it("sets revision variables and creates, replaces and deletes reusable contents", async () => {
    const draft = await open();
    const variables = await clients.editing.setVariables({ caller: owner(), draftId: draft.id, variables: { product: "Imprint", version: "2" } });
    expect(variables.variables).toEqual({ product: "Imprint", version: "2" });
    const created = (
      await clients.editing.setReusableContent({
        caller: owner(),
        draftId: draft.id,
        reusableContentId: "",
        title: "Footer",
        markdown: "Thanks",
        delete: false,
      })
    ).reusableContent!;
    const other = (
      await clients.editing.setReusableContent({ caller: owner(), draftId: draft.id, reusableContentId: "", title: "Gone", markdown: "", delete: false })
    ).reusableContent!;
    await clients.editing.setReusableContent({
      caller: owner(),
      draftId: draft.id,
      reusableContentId: created.id,
      title: "Footer v2",
      markdown: "Thanks!",
      delete: false,
    });
    await clients.editing.setReusableContent({ caller: owner(), draftId: draft.id, reusableContentId: other.id, title: "", markdown: "", delete: true });
    await commit(draft.id);

    const revision = (await clients.revisions.getRevision({ caller: owner(), ref: contentRef(spaceId), options: readAll })).revision!;
    expect(revision.variables).toEqual({ product: "Imprint", version: "2" });
    expect(revision.reusableContents.map((item) => [item.id, item.title])).toEqual([[created.id, "Footer v2"]]);
    expect(revision.reusableContents[0]!.documentId).toMatch(/^[0-9a-f]{64}$/);

    const next = await open();
    expect((await failure(clients.editing.setVariables({ caller: owner(), draftId: next.id, variables: { "bad-name": "x" } }))).message).toMatch(
      /^variables\.bad-name: /,
    );
    expect((await failure(clients.editing.setVariables({ caller: owner(), draftId: next.id, variables: { long: "x".repeat(257) } }))).message).toMatch(
      /^variables\.long: /,
    );
    expect(
      await errorCode(
        clients.editing.setReusableContent({ caller: owner(), draftId: next.id, reusableContentId: "nope", title: "T", markdown: "", delete: false }),
      ),
    ).toBe("not_found");
  });
});

describe("who may edit", () => {
  it("readers cannot open drafts, other organizations see nothing, and a draft answers only its owner", async () => {
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const editor = await createMember(harness, org.organizationId, { role: "edit" });
    const outsider = await createOutsider(harness);
    const other = await createOrganization(harness);

    expect(await errorCode(clients.editing.openDraft({ caller: reader.caller, spaceId, parentRevisionId: "", changeRequestId: "" }))).toBe("permission_denied");
    expect(await errorCode(clients.editing.openDraft({ caller: outsider.caller, spaceId, parentRevisionId: "", changeRequestId: "" }))).toBe("not_found");
    expect(await errorCode(clients.editing.openDraft({ caller: other.owner.caller, spaceId, parentRevisionId: "", changeRequestId: "" }))).toBe("not_found");

    const draft = (await clients.editing.openDraft({ caller: editor.caller, spaceId, parentRevisionId: "", changeRequestId: "" })).draft!;
    await clients.editing.createPage({ caller: editor.caller, draftId: draft.id, page: newPage({ title: "By editor" }) });
    // Even the organization's owner cannot touch (or see) someone else's draft.
    expect(await errorCode(clients.editing.createPage({ caller: owner(), draftId: draft.id, page: newPage({ title: "Intrusion" }) }))).toBe("not_found");
    expect(await errorCode(clients.revisions.listPages({ caller: owner(), ref: contentRef(spaceId, draft.id), options: readAll }))).toBe("not_found");
    expect(await errorCode(clients.editing.commitDraft({ caller: owner(), draftId: draft.id, message: "", moveHead: true, expectedHeadRevisionId: "" }))).toBe(
      "not_found",
    );
    expect(
      (await clients.editing.commitDraft({ caller: editor.caller, draftId: draft.id, message: "", moveHead: true, expectedHeadRevisionId: "" })).movedHead,
    ).toBe(true);
    expect(outline(await tree())).toEqual(["by-editor"]);
  });
});
