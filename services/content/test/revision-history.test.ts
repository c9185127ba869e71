import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { ContentChangeType, PageType } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import {
  createMember,
  createOrganization,
  createOutsider,
  createRevision,
  createSpace,
  errorCode,
  testClient,
  type TestOrganization,
} from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, contentRef, newPage, pageChange, readAll, type ContentClients } from "./revisions-fixtures.js";

/**
 * The reads of a space's history over gRPC: what one revision changed (ListRevisionChanges), a
 * page's body alone (GetPageDocument), a document by its id (GetDocument) and a reusable content
 * (GetReusableContent), each of an old revision as of the current one, with the space's access.
 */
let harness: ContentHarness;
let clients: ContentClients;
let branches: PromiseClient<typeof BranchServiceService>;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  branches = testClient(BranchServiceService, harness.contentAddress);
});
afterAll(async () => {
  branches?.close();
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
const update = (draftId: string, fields: Parameters<typeof pageChange>[0]) =>
  clients.editing.updatePage({ caller: owner(), draftId, page: pageChange(fields) });
const changesOf = (revisionId: string, pageSize = 0, pageToken = "", caller = owner()) =>
  clients.revisions.listRevisionChanges({ caller, ref: contentRef(spaceId, revisionId), page: { pageSize, pageToken } });
const summary = (changes: { type: ContentChangeType; page?: { id: string }; file?: { name: string } }[]) =>
  changes.map((change) => [ContentChangeType[change.type], change.page?.id ?? change.file?.name]);

describe("ListRevisionChanges", () => {
  it("answers each revision's changes against its parent, the first one's as created, however old", async () => {
    const first = await edit(async (draftId) => {
      await create(draftId, { pageId: "home", title: "Home", markdown: "v1" });
      await create(draftId, { pageId: "gone", title: "Gone", markdown: "Bye" });
    });
    const second = await edit(async (draftId) => {
      await update(draftId, { pageId: "home", markdown: "v2", title: "Start" });
      await clients.editing.deletePage({ caller: owner(), draftId, pageId: "gone" });
      await create(draftId, { pageId: "group", title: "Group", type: PageType.PAGE_TYPE_GROUP });
    });
    await edit((draftId) => update(draftId, { pageId: "home", markdown: "v3" }));

    const ofSecond = await changesOf(second);
    expect(ofSecond).toMatchObject({ revisionId: second, baseRevisionId: first, remaining: 0, mergedChangeRequestId: "" });
    expect(summary(ofSecond.changes)).toEqual([
      ["CONTENT_CHANGE_TYPE_PAGE_DELETED", "gone"],
      ["CONTENT_CHANGE_TYPE_PAGE_CREATED", "group"],
      ["CONTENT_CHANGE_TYPE_PAGE_EDITED", "home"],
    ]);
    const edited = ofSecond.changes.find((change) => change.type === ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_EDITED)!;
    expect(edited.pageAttributes?.title).toEqual({ before: "Home", after: "Start" });

    // The first revision of the space has no content; the first edit creates all it holds.
    const initial = (await changesOf(first)).baseRevisionId;
    const root = await changesOf(initial);
    expect(root).toMatchObject({ baseRevisionId: "", changes: [] });
    expect(summary((await changesOf(first)).changes)).toEqual([
      ["CONTENT_CHANGE_TYPE_PAGE_CREATED", "gone"],
      ["CONTENT_CHANGE_TYPE_PAGE_CREATED", "home"],
    ]);

    // Paged: the token goes on where the previous page stopped.
    const one = await changesOf(second, 2);
    expect(one).toMatchObject({ remaining: 1, page: { totalCount: 3 } });
    const two = await changesOf(second, 2, one.page!.nextPageToken);
    expect(summary([...one.changes, ...two.changes])).toEqual(summary(ofSecond.changes));
    expect(two).toMatchObject({ remaining: 0, page: { nextPageToken: "" } });
  });

  it("answers a merge revision's changes as what the merge brought in, naming the change request", async () => {
    await edit((draftId) => create(draftId, { pageId: "home", title: "Home", markdown: "v1" }));
    const changeRequestId = randomUUID();
    await branches.createBranch({ caller: owner(), spaceId, changeRequestId, number: 1 });
    await createRevision(clients, owner(), { spaceId, changeRequestId }, (draftId) => create(draftId, { pageId: "new", title: "New", markdown: "Hi" }));
    await edit((draftId) => create(draftId, { pageId: "main", title: "Main", markdown: "On main" }));
    const merged = await branches.mergeBranch({ caller: owner(), spaceId, changeRequestId });
    const changes = await changesOf(merged.revisionId);
    expect(changes.mergedChangeRequestId).toBe(changeRequestId);
    expect(summary(changes.changes)).toEqual([["CONTENT_CHANGE_TYPE_PAGE_CREATED", "new"]]);
  });

  it("refuses a reference without a revision or with a change request; not_found for others' and unknown revisions", async () => {
    const revisionId = await edit((draftId) => create(draftId, { title: "Secret" }));
    const ask = (ref: { spaceId: string; changeRequestId: string; revisionId: string }, caller = owner()) =>
      clients.revisions.listRevisionChanges({ caller, ref, page: { pageSize: 0, pageToken: "" } });
    expect(await errorCode(ask(contentRef(spaceId)))).toBe("invalid_argument");
    expect(await errorCode(ask({ spaceId, changeRequestId: "1", revisionId }))).toBe("invalid_argument");
    expect(await errorCode(ask(contentRef(spaceId, "not-a-revision")))).toBe("not_found");
    const other = await createOrganization(harness);
    expect(await errorCode(ask(contentRef(spaceId, revisionId), other.owner.caller))).toBe("not_found");
    expect(await errorCode(ask(contentRef(spaceId, revisionId), (await createOutsider(harness)).caller))).toBe("not_found");
    // A revision of another space is not one of this space's.
    const otherSpace = await createSpace(harness, org);
    expect(await errorCode(ask(contentRef(otherSpace.id, revisionId)))).toBe("not_found");
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect((await ask(contentRef(spaceId, revisionId), reader.caller)).revisionId).toBe(revisionId);
  });
});

describe("GetPageDocument, GetDocument and GetReusableContent", () => {
  it("read the bodies of an old revision as they were, evaluated on request, by page or by document id", async () => {
    const first = await edit(async (draftId) => {
      await clients.editing.setVariables({ caller: owner(), draftId, variables: { product: "Imprint" } });
      await create(draftId, { pageId: "home", title: "Home", markdown: "Hello {{ space.vars.product }}" });
      await create(draftId, { pageId: "child", parentPageId: "home", title: "Child", markdown: "Nested" });
      await create(draftId, { pageId: "group", title: "Group", type: PageType.PAGE_TYPE_GROUP });
    });
    await edit((draftId) => update(draftId, { pageId: "home", markdown: "Changed" }));
    const text = (json: string) => JSON.stringify(JSON.parse(json));

    const old = await clients.revisions.getPageDocument({ caller: owner(), ref: contentRef(spaceId, first), pageId: "home", evaluated: false });
    expect(old.revisionId).toBe(first);
    expect(JSON.parse(old.documentJson)).toMatchObject({ object: "document" });
    expect(old.documentJson).toContain("{{ space.vars.product }}");
    const evaluated = await clients.revisions.getPageDocument({ caller: owner(), ref: contentRef(spaceId, first), pageId: "home", evaluated: true });
    expect(evaluated.documentJson).toContain("Hello Imprint");
    const current = await clients.revisions.getPageDocument({ caller: owner(), ref: contentRef(spaceId), pageId: "home", evaluated: false });
    expect(current.documentJson).toContain("Changed");
    expect(current.documentJson).not.toContain("Nested");
    const group = await clients.revisions.getPageDocument({ caller: owner(), ref: contentRef(spaceId, first), pageId: "group", evaluated: false });
    expect(JSON.parse(group.documentJson)).toEqual({ object: "document", data: {}, nodes: [] });
    expect(await errorCode(clients.revisions.getPageDocument({ caller: owner(), ref: contentRef(spaceId, first), pageId: "nope", evaluated: false }))).toBe(
      "not_found",
    );

    // The old body's id names it in the space for good, whichever revision is current.
    const oldPage = await clients.revisions.getPage({ caller: owner(), ref: contentRef(spaceId, first), options: readAll, pageId: "home" });
    const document = await clients.revisions.getDocument({ caller: owner(), spaceId, documentId: oldPage.page!.documentId });
    expect(text(document.documentJson)).toBe(text(old.documentJson));
    expect(await errorCode(clients.revisions.getDocument({ caller: owner(), spaceId, documentId: "0".repeat(64) }))).toBe("not_found");
    expect(await errorCode(clients.revisions.getDocument({ caller: owner(), spaceId, documentId: "not-an-id" }))).toBe("not_found");
    const other = await createOrganization(harness);
    expect(await errorCode(clients.revisions.getDocument({ caller: other.owner.caller, spaceId, documentId: oldPage.page!.documentId }))).toBe("not_found");
    // Documents are the space's: another space of the organization does not answer this one's.
    const otherSpace = await createSpace(harness, org);
    expect(await errorCode(clients.revisions.getDocument({ caller: owner(), spaceId: otherSpace.id, documentId: oldPage.page!.documentId }))).toBe("not_found");
  });

  it("reads a reusable content of a revision with its body, and of a change request's branch", async () => {
    let reusableContentId = "";
    const first = await edit(async (draftId) => {
      await clients.editing.setVariables({ caller: owner(), draftId, variables: { product: "Imprint" } });
      const set = await clients.editing.setReusableContent({
        caller: owner(),
        draftId,
        reusableContentId: "",
        title: "Footer",
        markdown: "Bye from {{ space.vars.product }}",
        delete: false,
      });
      reusableContentId = set.reusableContent!.id;
    });
    // A change request forked now keeps it while the space deletes it.
    const changeRequestId = randomUUID();
    await branches.createBranch({ caller: owner(), spaceId, changeRequestId, number: 1 });
    await edit((draftId) => clients.editing.setReusableContent({ caller: owner(), draftId, reusableContentId, title: "Footer", markdown: "", delete: true }));
    const read = (revisionId: string, withDocument: boolean, ofChangeRequest = "", evaluated = false) =>
      clients.revisions.getReusableContent({
        caller: owner(),
        ref: { spaceId, changeRequestId: ofChangeRequest, revisionId },
        options: readAll,
        reusableContentId,
        withDocument,
        evaluated,
      });

    const old = await read(first, true);
    expect(old.reusableContent).toMatchObject({ id: reusableContentId, title: "Footer" });
    expect(old.reusableContent!.documentId).toMatch(/^[0-9a-f]{64}$/);
    expect(old.documentJson).toContain("Bye from {{ space.vars.product }}");
    expect((await read(first, true, "", true)).documentJson).toContain("Bye from Imprint");
    expect((await read(first, false)).documentJson).toBe("");
    // Deleted since: the current revision no longer has it.
    expect(await errorCode(read("", false))).toBe("not_found");

    await createRevision(clients, owner(), { spaceId, changeRequestId }, (draftId) =>
      clients.editing.setReusableContent({ caller: owner(), draftId, reusableContentId, title: "Back", markdown: "Again", delete: false }),
    );
    expect((await read("", true, changeRequestId)).reusableContent!.title).toBe("Back");
    const other = await createOrganization(harness);
    expect(
      await errorCode(
        clients.revisions.getReusableContent({
          caller: other.owner.caller,
          ref: contentRef(spaceId, first),
          options: readAll,
          reusableContentId,
          withDocument: false,
          evaluated: false,
        }),
      ),
    ).toBe("not_found");
  });
});
