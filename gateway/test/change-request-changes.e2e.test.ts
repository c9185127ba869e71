import { CreatePageInput, MovePageInput } from "@imprint/proto/content/v1/editing";
import { pageUpdate, pngBytes } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitDraftWork, commitEdits, startEditingStack, stopEditingStack, type DraftCaller, type DraftEdits, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallOptions } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * getChangeRequestChanges end to end: branches written through the content service's editing API,
 * their changes against the merge base read through the gateway (every answer checked against
 * GitBook's `RevisionSemanticChanges`), paged with the gateway's signed cursors.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
});
afterAll(() => stopEditingStack(stack, editing));
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
});

interface Change {
  type: string;
  page?: { id: string; type: string; title: string; path?: string };
  file?: { id: string; name: string; contentType: string; downloadURL: string };
  parent?: { before?: { id: string }; after?: { id: string } };
  attributes?: Record<string, { before?: unknown; after?: unknown }>;
}

const owner = (options: CallOptions = {}): CallOptions => ({ token: org.owner.token, ...options });
const mainTarget = () => ({ userId: org.owner.userId, spaceId });
const branchTarget = (changeRequestId: string) => ({ userId: org.owner.userId, spaceId, changeRequestId });
const editMain = (work: (draft: DraftEdits) => Promise<unknown>) => commitEdits(editing, mainTarget(), work);
const editBranch = (changeRequestId: string, work: (draft: DraftEdits) => Promise<unknown>) => commitEdits(editing, branchTarget(changeRequestId), work);
const workOnBranch = (changeRequestId: string, work: (draftId: string, caller: DraftCaller) => Promise<unknown>) =>
  commitDraftWork(editing, branchTarget(changeRequestId), work);
const crPath = (changeRequestId: string | number, rest = "") => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}${rest}`;

async function createChangeRequest(subject = "Proposal"): Promise<ChangeRequest> {
  const response = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, owner({ json: { subject } }));
  if (response.status !== 201) throw new Error(`createChangeRequest answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as ChangeRequest;
}

async function changesOf(
  changeRequestId: string | number,
  query = "limit=1000",
  options: CallOptions = owner(),
): Promise<{ changes: Change[]; more?: number; next?: { page: string } }> {
  const response = await call(stack, "GET", crPath(changeRequestId, `/changes?${query}`), options);
  expect(response.status).toBe(200);
  return response.body as { changes: Change[]; more?: number; next?: { page: string } };
}

/** `type page-or-file-id` of each change, in answer order. */
const summary = (changes: Change[]) => changes.map((change) => `${change.type} ${change.page?.id ?? change.file?.name}`);

const PARAGRAPHS = "First paragraph.\n\nSecond paragraph.";

describe("the changes of a change request", () => {
  it("lists pages created, edited (title, body, metadata), deleted with their descendants and moved, and files created, edited and deleted", async () => {
    let logoId = "";
    let notesId = "";
    let readmeId = "";
    await commitDraftWork(editing, mainTarget(), async (draftId, caller) => {
      const page = (fields: Partial<CreatePageInput>) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) });
      await page({ pageId: "intro", title: "Intro", markdown: PARAGRAPHS });
      await page({ pageId: "faq", title: "FAQ", markdown: "Questions." });
      await page({ pageId: "about", title: "About", markdown: "About us." });
      await page({ pageId: "old", title: "Old", markdown: "Old." });
      await page({ pageId: "old-child", parentPageId: "old", title: "Old child", markdown: "Older." });
      await page({ pageId: "old-grandchild", parentPageId: "old-child", title: "Old grandchild", markdown: "Oldest." });
      await page({ pageId: "wanderer", title: "Wanderer", markdown: "Moves." });
      logoId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "logo.png", contentType: "image/png", content: pngBytes(20, 10) })).file!.id;
      notesId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "notes.txt", contentType: "text/plain", content: Buffer.from("notes") })).file!
        .id;
      readmeId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "readme.txt", contentType: "text/plain", content: Buffer.from("short") })).file!
        .id;
    });
    const cr = await createChangeRequest();
    // Nothing changed yet.
    expect(await changesOf(cr.id)).toEqual({ changes: [] });

    await workOnBranch(cr.id, async (draftId, caller) => {
      await editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial({ pageId: "new", title: "New page", markdown: "Fresh." }) });
      await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "intro", title: "Introduction" }) });
      await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "faq", markdown: "Questions and answers." }) });
      await editing.updatePage({
        caller,
        draftId,
        page: pageUpdate({
          pageId: "about",
          description: "Who we are",
          emoji: "1f600",
          layout: { width: "wide" },
          cover: { ref: { url: "https://example.com/cover.png", fileId: "" }, yPos: 0 },
        }),
      });
      await editing.deletePage({ caller, draftId, pageId: "old" });
      await editing.movePage({ caller, draftId, move: MovePageInput.fromPartial({ pageId: "wanderer", parentPageId: "about" }) });
      await editing.uploadFile({ caller, draftId, fileId: logoId, name: "logo.png", contentType: "image/png", content: pngBytes(40, 30) });
      await editing.deleteFile({ caller, draftId, fileId: notesId });
      await editing.uploadFile({ caller, draftId, fileId: readmeId, name: "readme.md", contentType: "text/markdown", content: Buffer.from("# Much longer") });
      await editing.uploadFile({ caller, draftId, fileId: "", name: "guide.txt", contentType: "text/plain", content: Buffer.from("guide") });
    });
    // Main moves on after the fork: not a change of the change request.
    await editMain((draft) => draft.createPage({ pageId: "main-only", title: "Main only", markdown: "Main." }));

    const { changes, more, next } = await changesOf(cr.id);
    expect(more).toBeUndefined();
    expect(next).toBeUndefined();
    // Pages by path, then files by name.
    expect(summary(changes)).toEqual([
      "page_edited about",
      "page_moved wanderer",
      "page_edited faq",
      "page_edited intro",
      "page_created new",
      "page_deleted old",
      "page_deleted old-child",
      "page_deleted old-grandchild",
      "file_created guide.txt",
      "file_edited logo.png",
      "file_deleted notes.txt",
      "file_edited readme.md",
    ]);
    const find = (type: string, id: string) => changes.find((change) => change.type === type && (change.page?.id === id || change.file?.name === id))!;

    expect(find("page_edited", "intro")).toEqual({
      type: "page_edited",
      page: { id: "intro", type: "document", title: "Introduction", path: "intro" },
      attributes: { title: { before: "Intro", after: "Introduction" } },
    });
    const body = find("page_edited", "faq").attributes!;
    expect(Object.keys(body)).toEqual(["document"]);
    expect(body.document!.before).toEqual(expect.any(String));
    expect(body.document!.after).toEqual(expect.any(String));
    expect(body.document!.after).not.toBe(body.document!.before);
    // The document id is the page's documentId in the change request's content.
    const faq = await call(stack, "GET", crPath(cr.id, "/content/page/faq"), owner());
    expect(faq.body.documentId).toBe(body.document!.after);

    const metadata = find("page_edited", "about").attributes!;
    expect(metadata.description).toEqual({ after: "Who we are" });
    expect(metadata.emoji).toEqual({ after: "1f600" });
    expect(metadata.layout!.before).toMatchObject({ width: "default" });
    expect(metadata.layout!.after).toMatchObject({ width: "wide" });
    expect(metadata.cover).toEqual({ after: { ref: { kind: "url", url: "https://example.com/cover.png" }, yPos: 0 } });
    expect(Object.keys(metadata).sort()).toEqual(["cover", "description", "emoji", "layout"]);

    expect(find("page_created", "new")).toEqual({ type: "page_created", page: { id: "new", type: "document", title: "New page", path: "new-page" } });
    expect(find("page_deleted", "old-grandchild")).toEqual({
      type: "page_deleted",
      page: { id: "old-grandchild", type: "document", title: "Old grandchild", path: "old/old-child/old-grandchild" },
    });
    expect(find("page_moved", "wanderer")).toEqual({
      type: "page_moved",
      page: { id: "wanderer", type: "document", title: "Wanderer", path: "about/wanderer" },
      parent: { after: { id: "about", type: "document", title: "About", path: "about" } },
    });

    const logo = find("file_edited", "logo.png");
    expect(logo.file).toMatchObject({ id: logoId, name: "logo.png", contentType: "image/png" });
    expect(logo.attributes!.dimensions).toEqual({ before: { width: 20, height: 10 }, after: { width: 40, height: 30 } });
    expect(logo.attributes!.downloadURL!.after).toBe(logo.file!.downloadURL);
    expect(logo.attributes!.name).toBeUndefined();
    // The download URLs serve each side's bytes.
    const before = await fetch(String(logo.attributes!.downloadURL!.before));
    const after = await fetch(logo.file!.downloadURL);
    expect(before.status).toBe(200);
    expect(after.status).toBe(200);
    expect(Buffer.from(await after.arrayBuffer()).equals(pngBytes(40, 30))).toBe(true);
    expect(find("file_edited", "readme.md").attributes).toEqual({
      name: { before: "readme.txt", after: "readme.md" },
      contentType: { before: "text/plain", after: "text/markdown" },
      size: { before: 5, after: 13 },
      downloadURL: { before: expect.any(String) as unknown, after: expect.any(String) as unknown },
    });
    expect(find("file_deleted", "notes.txt").file).toMatchObject({ id: notesId, name: "notes.txt", contentType: "text/plain" });
    const created = find("file_created", "guide.txt").file!;
    expect(await (await fetch(created.downloadURL)).text()).toBe("guide");
  });

  it("pages the changes: GitBook's limit (10 by default) and `more`, and a signed cursor to the next page", async () => {
    await editMain((draft) => draft.createPage({ pageId: "intro", title: "Intro", markdown: PARAGRAPHS }));
    const cr = await createChangeRequest();
    await editBranch(cr.id, async (draft) => {
      for (let index = 0; index < 13; index++)
        await draft.createPage({ pageId: `p${String(index).padStart(2, "0")}`, title: `Page ${index}`, markdown: `Body ${index}.` });
    });

    const all = (await changesOf(cr.id)).changes;
    expect(all).toHaveLength(13);
    const byDefault = await changesOf(cr.number, "");
    expect(byDefault.changes).toEqual(all.slice(0, 10));
    expect(byDefault.more).toBe(3);

    const seen: Change[] = [];
    const mores: (number | undefined)[] = [];
    let query = "limit=4";
    for (let round = 0; round < 10; round++) {
      const page = await changesOf(cr.id, query);
      seen.push(...page.changes);
      mores.push(page.more);
      if (!page.next) break;
      query = `limit=4&page=${encodeURIComponent(page.next.page)}`;
    }
    expect(seen).toEqual(all);
    expect(mores).toEqual([9, 5, 1, undefined]);

    // A cursor is only good for the change request it was handed out for; limits are checked.
    const first = await changesOf(cr.id, "limit=4");
    const other = await createChangeRequest("Other");
    const foreign = await call(stack, "GET", crPath(other.id, `/changes?page=${encodeURIComponent(first.next!.page)}`), owner());
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toBe("page: not a valid page token for this list");
    for (const limit of ["0", "1001", "ten"]) {
      const response = await call(stack, "GET", crPath(cr.id, `/changes?limit=${limit}`), owner());
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe("limit: must be an integer between 1 and 1000");
    }
  });

  it("compares with the merge base after an update from main, and keeps a merged change request's changes", async () => {
    await editMain(async (draft) => {
      await draft.createPage({ pageId: "intro", title: "Intro", markdown: PARAGRAPHS });
      await draft.createPage({ pageId: "faq", title: "FAQ", markdown: "Questions." });
    });
    const cr = await createChangeRequest();
    await editBranch(cr.id, (draft) => draft.updatePage({ pageId: "faq", title: "Questions" }));
    await editMain(async (draft) => {
      await draft.updatePage({ pageId: "intro", markdown: "First paragraph.\n\nSecond paragraph, from main." });
      await draft.createPage({ pageId: "news", title: "News", markdown: "News." });
    });
    // Before the update, main's edits are not the change request's either.
    expect(summary((await changesOf(cr.id)).changes)).toEqual(["page_edited faq"]);

    expect((await call(stack, "POST", crPath(cr.id, "/update"), owner())).status).toBe(200);
    await editBranch(cr.id, (draft) => draft.createPage({ pageId: "later", title: "Later", markdown: "Later." }));
    // Main's pages are in the branch now, through the merge base: still not its changes.
    const updated = await changesOf(cr.id);
    expect(summary(updated.changes)).toEqual(["page_edited faq", "page_created later"]);
    expect(updated.changes[0]!.attributes).toEqual({ title: { before: "FAQ", after: "Questions" } });

    expect((await call(stack, "POST", crPath(cr.id, "/merge"), owner())).status).toBe(200);
    await editMain((draft) => draft.updatePage({ pageId: "faq", title: "FAQ again" }));
    // Merged: what it brought in, against its base as of the merge.
    expect(await changesOf(cr.id)).toEqual(updated);
  });

  it("needs read access: readers read; other organizations and unknown change requests are 404", async () => {
    await editMain((draft) => draft.createPage({ pageId: "intro", title: "Intro", markdown: PARAGRAPHS }));
    const cr = await createChangeRequest();
    await editBranch(cr.id, (draft) => draft.updatePage({ pageId: "intro", title: "Introduction" }));

    const reader = await createMember(stack, org, { role: "read" });
    expect(summary((await changesOf(cr.id, "limit=5", { token: reader.token })).changes)).toEqual(["page_edited intro"]);

    const stranger = await createOrganization(stack);
    const foreign = await call(stack, "GET", crPath(cr.id, "/changes"), { token: stranger.owner.token });
    expect(foreign.status).toBe(404);
    expect((await call(stack, "GET", crPath(99, "/changes"), owner())).status).toBe(404);
    expect((await call(stack, "GET", crPath("not-a-change-request", "/changes"), owner())).status).toBe(404);
    expect((await call(stack, "GET", crPath(cr.id, "/changes"))).status).toBe(401);
  });
});
