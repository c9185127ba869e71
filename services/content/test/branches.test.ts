import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Caller } from "@imprint/proto/common/v1";
import { BranchServiceService, type Branch } from "@imprint/proto/content/v1/branches";
import { LinkServiceService, LinkStatus } from "@imprint/proto/content/v1/links";
import type { PromiseClient } from "@imprint/runtime";
import {
  eventually,
  testClient,
  createMember,
  createOrganization,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  readEvents,
  createRevision,
  testNats,
} from "@imprint/runtime/testing";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { asMarkdown, contentClients, contentRef, newPage, pageChange, readAll, type ContentClients } from "./revisions-fixtures.js";

/**
 * Change requests' branches through BranchService, the editing API and the content reads: forks,
 * edits on a branch that leave the space alone, reads by change request id or number, the head's
 * compare-and-set, outdated, update from the space, merge (idempotent, serialised per space),
 * access, purge, and the space counters fed by collaboration events.
 */
let harness: ContentHarness;
let clients: ContentClients;
let branches: PromiseClient<typeof BranchServiceService>;
let links: PromiseClient<typeof LinkServiceService>;
let nc: NatsConnection;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  branches = testClient(BranchServiceService, harness.contentAddress);
  links = testClient(LinkServiceService, harness.contentAddress);
  nc = await testNats();
});
afterAll(async () => {
  links?.close();
  branches?.close();
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
});

const owner = () => org.owner.caller;
const spaceHead = async () => (await harness.spaces.getSpace({ caller: owner(), spaceId, shareKey: "" })).space!.revisionId;
const createPage = (caller: Caller, draftId: string, fields: Parameters<typeof newPage>[0]) =>
  clients.editing.createPage({ caller, draftId, page: newPage(fields) });
const editSpace = (work: (draftId: string) => Promise<unknown>) => createRevision(clients, owner(), { spaceId }, work);
const setMarkdown = (draftId: string, pageId: string, markdown: string) =>
  clients.editing.updatePage({ caller: owner(), draftId, page: pageChange({ pageId, markdown }) });

const createBranch = async (number: number, id: string = randomUUID(), caller = owner()): Promise<Branch> =>
  (await branches.createBranch({ caller, spaceId, changeRequestId: id, number })).branch!;
const getBranch = async (id: string): Promise<Branch | undefined> =>
  (await branches.batchGetBranches({ caller: owner(), spaceId, changeRequestIds: [id] })).branches[0];
const openOnBranch = async (changeRequestId: string, caller = owner()) =>
  (await clients.editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId })).draft!;
/** Opens a draft on the branch, runs `work`, commits moving the branch's head. */
async function editBranch(changeRequestId: string, work: (draftId: string) => Promise<unknown>): Promise<string> {
  const draft = await openOnBranch(changeRequestId);
  await work(draft.id);
  return (await clients.editing.commitDraft({ caller: owner(), draftId: draft.id, message: "branch edit", moveHead: true, expectedHeadRevisionId: "" }))
    .revisionId;
}
const crRef = (changeRequestId: string, revisionId = "") => ({ spaceId, changeRequestId, revisionId });
const pageTitles = async (ref: ReturnType<typeof contentRef>) =>
  (await clients.revisions.listPages({ caller: owner(), ref, options: readAll, knownRevisionId: "" })).pages.map((page) => page.title);
const markdownOf = async (ref: ReturnType<typeof contentRef>, pageId: string) =>
  (await clients.revisions.getPage({ caller: owner(), ref, options: readAll, pageId, pageOptions: asMarkdown })).page!.markdown;
const merge = (changeRequestId: string, caller = owner()) => branches.mergeBranch({ caller, spaceId, changeRequestId });
const update = (changeRequestId: string, caller = owner()) => branches.updateBranch({ caller, spaceId, changeRequestId });

/** A space with two pages, "a" and "b", committed as its current revision. */
async function twoPageSpace(): Promise<string> {
  return editSpace(async (draftId) => {
    await createPage(owner(), draftId, { pageId: "a", title: "A", markdown: "Page A\n\nsecond paragraph" });
    await createPage(owner(), draftId, { pageId: "b", title: "B", markdown: "Page B" });
  });
}

describe("creating branches", () => {
  it("forks from the space's current revision, idempotently by id; a number taken by another change request is refused", async () => {
    const head = await twoPageSpace();
    const id = randomUUID();
    const branch = await createBranch(1, id);
    expect(branch).toMatchObject({
      id,
      spaceId,
      number: 1,
      headRevisionId: head,
      initialRevisionId: head,
      mergedAncestorRevisionId: "",
      mergedRevisionId: "",
      outdated: false,
    });
    expect(branch.createdAt).toBeInstanceOf(Date);
    expect(await createBranch(1, id)).toEqual(branch);
    expect((await failure(createBranch(1))).code).toBe("already_exists");
    expect((await failure(createBranch(2, id))).code).toBe("already_exists");
    expect(await failure(createBranch(0))).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^number: /) as unknown });
    expect(await failure(createBranch(3, "not-a-uuid"))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^change_request_id: /) as unknown,
    });
  });

  it("starts at a given revision of the space's own history, its first parent the base; refuses others", async () => {
    const first = await twoPageSpace();
    const second = await editSpace((draftId) => createPage(owner(), draftId, { title: "Third" }));
    const started = (await branches.createBranch({ caller: owner(), spaceId, changeRequestId: randomUUID(), number: 1, headRevisionId: second })).branch!;
    expect(started).toMatchObject({ number: 1, headRevisionId: second, initialRevisionId: first });
    const onBranch = await editBranch(started.id, (draftId) => createPage(owner(), draftId, { title: "Fourth" }));
    const other = (await createSpace(harness, org)).id;
    const refusals: [string, string][] = [
      ["not-a-uuid", "invalid_argument"],
      [randomUUID(), "not_found"],
      [(await harness.spaces.getSpace({ caller: owner(), spaceId: other, shareKey: "" })).space!.revisionId, "not_found"],
      [onBranch, "invalid_argument"],
    ];
    for (const [headRevisionId, code] of refusals) {
      const refused = await failure(branches.createBranch({ caller: owner(), spaceId, changeRequestId: randomUUID(), number: 9, headRevisionId }));
      expect(refused, headRevisionId).toMatchObject({ code, message: expect.stringMatching(/^head_revision_id: /) as unknown });
    }
  });

  it("records branch.created", async () => {
    const since = new Date();
    const head = await spaceHead();
    const branch = await createBranch(1);
    const created = await eventually(
      async () => (await readEvents("content", { since, organizationId: org.organizationId })).find((event) => event.type === "branch.created"),
      10_000,
    );
    expect(created.payload).toEqual({ spaceId, changeRequestId: branch.id, number: 1, revisionId: head });
    expect(created.actor).toEqual({ userId: org.owner.userId });
  });
});

describe("editing and reading a branch", () => {
  it("commits on the branch move its head only; the branch reads by id and by number, the space is unchanged", async () => {
    const head = await twoPageSpace();
    const branch = await createBranch(7);
    const draft = await openOnBranch("7");
    expect(draft).toMatchObject({ parentRevisionId: head, changeRequestId: branch.id, committed: false });
    expect((await clients.editing.getDraft({ caller: owner(), draftId: draft.id })).draft!.changeRequestId).toBe(branch.id);
    await createPage(owner(), draft.id, { pageId: "c", title: "C", markdown: "New on the branch" });
    await setMarkdown(draft.id, "a", "Page A, edited on the branch\n\nsecond paragraph");
    const committed = await clients.editing.commitDraft({
      caller: owner(),
      draftId: draft.id,
      message: "on the branch",
      moveHead: true,
      expectedHeadRevisionId: "",
    });
    expect(committed).toEqual({ revisionId: draft.id, parents: [head], movedHead: true });

    expect(await spaceHead()).toBe(head);
    expect(await pageTitles(contentRef(spaceId))).toEqual(["A", "B"]);
    expect(await markdownOf(contentRef(spaceId), "a")).toBe("Page A\n\nsecond paragraph");
    for (const changeRequestId of [branch.id, "7"]) {
      expect(await pageTitles(crRef(changeRequestId))).toEqual(["A", "B", "C"]);
      expect(await markdownOf(crRef(changeRequestId), "a")).toBe("Page A, edited on the branch\n\nsecond paragraph");
      const revision = (await clients.revisions.getRevision({ caller: owner(), ref: crRef(changeRequestId), options: readAll })).revision!;
      expect(revision).toMatchObject({ id: committed.revisionId, parents: [head] });
    }
    expect((await getBranch(branch.id))!.headRevisionId).toBe(committed.revisionId);
    // A revision given with the change request must belong to it: the branch's own, yes; the space's later ones, no.
    expect((await clients.revisions.getRevision({ caller: owner(), ref: crRef("7", committed.revisionId), options: readAll })).revision!.id).toBe(
      committed.revisionId,
    );
    const spaceOnly = await editSpace((draftId) => createPage(owner(), draftId, { title: "Main only" }));
    expect(await errorCode(clients.revisions.getRevision({ caller: owner(), ref: crRef("7", spaceOnly), options: readAll }))).toBe("not_found");
  });

  it("answers not_found for unknown change requests, by id, by number or by anything else", async () => {
    await createBranch(1);
    for (const changeRequestId of [randomUUID(), "2", "0", "01", "abc", "99999999999"]) {
      expect(await failure(clients.revisions.getRevision({ caller: owner(), ref: crRef(changeRequestId), options: readAll }))).toMatchObject({
        code: "not_found",
        message: "Change request not found",
      });
      expect(await errorCode(openOnBranch(changeRequestId))).toBe("not_found");
    }
    // Another space's change request is not this space's.
    const other = await createSpace(harness, org);
    const otherBranch = (await branches.createBranch({ caller: owner(), spaceId: other.id, changeRequestId: randomUUID(), number: 5 })).branch!;
    expect(await errorCode(clients.revisions.getRevision({ caller: owner(), ref: crRef(otherBranch.id), options: readAll }))).toBe("not_found");
  });

  it("moves the branch's head by compare-and-set: of two drafts from the same head, the second commit conflicts and stays open", async () => {
    await twoPageSpace();
    const branch = await createBranch(1);
    const first = await openOnBranch(branch.id);
    const second = await openOnBranch(branch.id);
    await createPage(owner(), first.id, { title: "First" });
    await createPage(owner(), second.id, { title: "Second" });
    await clients.editing.commitDraft({ caller: owner(), draftId: first.id, message: "", moveHead: true, expectedHeadRevisionId: "" });
    const conflict = await failure(
      clients.editing.commitDraft({ caller: owner(), draftId: second.id, message: "", moveHead: true, expectedHeadRevisionId: "" }),
    );
    expect(conflict.code).toBe("conflict");
    expect(conflict.message).toMatch(/change request's revision changed/);
    expect((await clients.editing.getDraft({ caller: owner(), draftId: second.id })).draft!.committed).toBe(false);
    // Against the new head it goes through.
    await clients.editing.commitDraft({ caller: owner(), draftId: second.id, message: "", moveHead: true, expectedHeadRevisionId: first.id });
    expect((await getBranch(branch.id))!.headRevisionId).toBe(second.id);
    expect(await pageTitles(contentRef(spaceId))).toEqual(["A", "B"]);
  });

  it("records revision.created with the change request for branch commits, without it for the space's", async () => {
    const since = new Date();
    const branch = await createBranch(1);
    const onBranch = await editBranch(branch.id, (draftId) => createPage(owner(), draftId, { title: "X" }));
    const onSpace = await editSpace((draftId) => createPage(owner(), draftId, { title: "Y" }));
    const events = await eventually(async () => {
      const found = (await readEvents("content", { since, organizationId: org.organizationId })).filter(
        (event) => event.type === "revision.created" && [onBranch, onSpace].includes(event.payload.revisionId as string),
      );
      return found.length === 2 ? found : undefined;
    }, 10_000);
    expect(events.map((event) => event.payload)).toEqual([
      { spaceId, revisionId: onBranch, parents: [branch.headRevisionId], movedHead: true, changeRequestId: branch.id },
      { spaceId, revisionId: onSpace, parents: [branch.headRevisionId], movedHead: true },
    ]);
  });

  it("summarises pages in request order, of the space or of a change request", async () => {
    await twoPageSpace();
    const branch = await createBranch(1);
    await editBranch(branch.id, async (draftId) => {
      const parent = (await createPage(owner(), draftId, { pageId: "guide", title: "Guide", emoji: "📘" })).page!;
      await createPage(owner(), draftId, { pageId: "setup", title: "Setup", parentPageId: parent.id });
    });
    const summaries = (ref: ReturnType<typeof contentRef>, pageIds: string[]) => clients.revisions.batchGetPageSummaries({ caller: owner(), ref, pageIds });
    const onBranch = await summaries(crRef("1"), ["setup", "missing", "a", "guide", "a", "bad id!"]);
    expect(onBranch.pages.map((page) => [page.id, page.title, page.path])).toEqual([
      ["setup", "Setup", "guide/setup"],
      ["a", "A", "a"],
      ["guide", "Guide", "guide"],
    ]);
    expect(onBranch.pages[2]).toMatchObject({ emoji: "📘", icon: "" });
    expect(onBranch.pages[2]!.createdAt).toBeInstanceOf(Date);
    expect(onBranch.revisionId).toBe((await getBranch(branch.id))!.headRevisionId);
    expect((await summaries(contentRef(spaceId), ["setup", "a"])).pages.map((page) => page.id)).toEqual(["a"]);
    expect(
      await errorCode(
        summaries(
          contentRef(spaceId),
          Array.from({ length: 1001 }, (_, index) => `p${index}`),
        ),
      ),
    ).toBe("invalid_argument");
  });

  it("counts the broken links a change request introduced, not those the space already had", async () => {
    await editSpace((draftId) => createPage(owner(), draftId, { pageId: "home", title: "Home", markdown: "[old](/pages/gone-before)" }));
    const branch = await createBranch(1);
    await editBranch(branch.id, async (draftId) => {
      await createPage(owner(), draftId, { pageId: "new", title: "New", markdown: "[fresh](/pages/never-there) and [old](/pages/gone-before)" });
    });
    const pageLinks = async (ref: ReturnType<typeof contentRef>, pageId: string) =>
      (
        await links.listPageLinks({
          caller: owner(),
          ref,
          pageId,
          status: LinkStatus.LINK_STATUS_UNSPECIFIED,
          page: { pageToken: "", pageSize: 0 },
          appUrl: "",
        })
      ).listing!.stats;
    const spaceWide = async (ref: ReturnType<typeof contentRef>) =>
      (await links.listLinks({ caller: owner(), ref, status: LinkStatus.LINK_STATUS_UNSPECIFIED, page: { pageToken: "", pageSize: 0 }, appUrl: "" })).listing!
        .stats;
    // The new page adds a reference to an already broken target too: that one is the change request's as well.
    expect(await spaceWide(crRef("1"))).toEqual({ total: 2, broken: 2, brokenInChangeRequest: 2 });
    expect(await pageLinks(crRef("1"), "home")).toEqual({ total: 1, broken: 1, brokenInChangeRequest: 0 });
    expect(await pageLinks(crRef("1"), "new")).toEqual({ total: 2, broken: 2, brokenInChangeRequest: 2 });
    expect(await spaceWide(contentRef(spaceId))).toEqual({ total: 1, broken: 1, brokenInChangeRequest: 0 });
  });
});

describe("outdated and update from the space", () => {
  it("is outdated once the space moves; update brings the space's edits in (other pages), records the merged ancestor and clears it", async () => {
    await twoPageSpace();
    const branch = await createBranch(1);
    const branchHead = await editBranch(branch.id, (draftId) => setMarkdown(draftId, "a", "Page A from the branch\n\nsecond paragraph"));
    expect((await getBranch(branch.id))!.outdated).toBe(false);
    // Not outdated: the update answers the head unchanged.
    expect((await update(branch.id)).revisionId).toBe(branchHead);

    const spaceEdit = await editSpace((draftId) => setMarkdown(draftId, "b", "Page B from the space"));
    const batch = await branches.batchGetBranches({ caller: owner(), spaceId, changeRequestIds: [branch.id, randomUUID(), "junk"] });
    expect(batch.spaceRevisionId).toBe(spaceEdit);
    expect(batch.branches.map((item) => [item.id, item.outdated])).toEqual([[branch.id, true]]);

    const updated = await update("1");
    expect(updated.revisionId).not.toBe(branchHead);
    expect(updated.branch).toMatchObject({ headRevisionId: updated.revisionId, mergedAncestorRevisionId: spaceEdit, outdated: false, mergedRevisionId: "" });
    const revision = (await clients.revisions.getRevision({ caller: owner(), ref: crRef("1"), options: readAll })).revision!;
    expect(revision).toMatchObject({ id: updated.revisionId, parents: [branchHead, spaceEdit], type: "update" });
    expect(await markdownOf(crRef("1"), "a")).toBe("Page A from the branch\n\nsecond paragraph");
    expect(await markdownOf(crRef("1"), "b")).toBe("Page B from the space");
    // The space is untouched by an update.
    expect(await spaceHead()).toBe(spaceEdit);
    expect(await markdownOf(contentRef(spaceId), "a")).toBe("Page A\n\nsecond paragraph");
    expect((await getBranch(branch.id))!.outdated).toBe(false);
  });
});

describe("merging", () => {
  it("merges the branch into the space as a two-parent revision, once; the merged branch takes no more edits", async () => {
    const since = new Date();
    await twoPageSpace();
    const branch = await createBranch(3);
    const branchHead = await editBranch(branch.id, async (draftId) => {
      await setMarkdown(draftId, "a", "Page A from the branch\n\nsecond paragraph");
      await createPage(owner(), draftId, { pageId: "c", title: "C" });
    });
    const spaceEdit = await editSpace((draftId) => setMarkdown(draftId, "b", "Page B from the space"));

    const merged = await merge("3");
    expect(merged.branch).toMatchObject({ id: branch.id, mergedRevisionId: merged.revisionId, headRevisionId: branchHead, outdated: false });
    expect(await spaceHead()).toBe(merged.revisionId);
    const revision = (await clients.revisions.getRevision({ caller: owner(), ref: contentRef(spaceId), options: readAll })).revision!;
    expect(revision).toMatchObject({ id: merged.revisionId, parents: [spaceEdit, branchHead], type: "merge", message: "Merge change request #3" });
    expect(await pageTitles(contentRef(spaceId))).toEqual(["A", "B", "C"]);
    expect(await markdownOf(contentRef(spaceId), "a")).toBe("Page A from the branch\n\nsecond paragraph");
    expect(await markdownOf(contentRef(spaceId), "b")).toBe("Page B from the space");

    // Idempotent: merging again answers the same revision and changes nothing.
    expect((await merge(branch.id)).revisionId).toBe(merged.revisionId);
    expect(await spaceHead()).toBe(merged.revisionId);
    expect((await getBranch(branch.id))!).toMatchObject({ mergedRevisionId: merged.revisionId, outdated: false });
    // Merged: no new draft, no update, and a draft opened before cannot move the head any more.
    expect(await failure(openOnBranch(branch.id))).toMatchObject({ code: "failed_precondition", message: expect.stringMatching(/merged/) as unknown });
    expect(await errorCode(update(branch.id))).toBe("failed_precondition");
    // The merged branch still reads: its head.
    expect((await clients.revisions.getRevision({ caller: owner(), ref: crRef("3"), options: readAll })).revision!.id).toBe(branchHead);

    const events = await eventually(async () => {
      const found = await readEvents("content", { since, organizationId: org.organizationId });
      return found.some((event) => event.type === "branch.merged") ? found : undefined;
    }, 10_000);
    expect(events.filter((event) => event.type === "branch.merged").map((event) => event.payload)).toEqual([
      { spaceId, changeRequestId: branch.id, revisionId: merged.revisionId },
    ]);
    expect(events.find((event) => event.type === "revision.created" && event.payload.revisionId === merged.revisionId)!.payload).toEqual({
      spaceId,
      revisionId: merged.revisionId,
      parents: [spaceEdit, branchHead],
      movedHead: true,
    });
  });

  it("a draft opened on the branch before the merge cannot commit onto it afterwards", async () => {
    const branch = await createBranch(1);
    const late = await openOnBranch(branch.id);
    await createPage(owner(), late.id, { title: "Too late" });
    await merge(branch.id);
    expect(
      await failure(clients.editing.commitDraft({ caller: owner(), draftId: late.id, message: "", moveHead: true, expectedHeadRevisionId: "" })),
    ).toMatchObject({
      code: "failed_precondition",
      message: expect.stringMatching(/merged/) as unknown,
    });
  });

  it("answers conflict naming the page and changes nothing when both sides changed the same text", async () => {
    await twoPageSpace();
    const branch = await createBranch(1);
    const branchHead = await editBranch(branch.id, (draftId) => setMarkdown(draftId, "a", "Page A, the branch's way\n\nsecond paragraph"));
    const spaceEdit = await editSpace((draftId) => setMarkdown(draftId, "a", "Page A, the space's way\n\nsecond paragraph"));
    const conflict = await failure(merge(branch.id));
    expect(conflict.code).toBe("conflict");
    expect(conflict.message).toMatch(/"A"/);
    expect(await spaceHead()).toBe(spaceEdit);
    expect((await getBranch(branch.id))!).toMatchObject({ headRevisionId: branchHead, mergedRevisionId: "", outdated: true });
    expect(await errorCode(update(branch.id))).toBe("conflict");
    expect((await getBranch(branch.id))!.headRevisionId).toBe(branchHead);
  });

  it("serialises racing merges of one space: both branches merge and the result has both changes", async () => {
    await twoPageSpace();
    const first = await createBranch(1);
    const second = await createBranch(2);
    await editBranch(first.id, (draftId) => setMarkdown(draftId, "a", "Page A from #1\n\nsecond paragraph"));
    await editBranch(second.id, (draftId) => setMarkdown(draftId, "b", "Page B from #2"));
    const [one, two] = await Promise.all([merge(first.id), merge(second.id)]);
    expect(one.revisionId).not.toBe(two.revisionId);
    const head = await spaceHead();
    expect([one.revisionId, two.revisionId]).toContain(head);
    // The later merge's first parent is the earlier merge: nothing was lost.
    const last = (await clients.revisions.getRevision({ caller: owner(), ref: contentRef(spaceId), options: readAll })).revision!;
    expect([one.revisionId, two.revisionId]).toContain(last.parents[0]);
    expect(await markdownOf(contentRef(spaceId), "a")).toBe("Page A from #1\n\nsecond paragraph");
    expect(await markdownOf(contentRef(spaceId), "b")).toBe("Page B from #2");
  });
});

describe("access", () => {
  it("another organization gets not_found for every call; a reader cannot create, an editor cannot merge", async () => {
    const branch = await createBranch(1);
    const other = await createOrganization(harness);
    const stranger = other.owner.caller;
    const calls = [
      () => branches.createBranch({ caller: stranger, spaceId, changeRequestId: randomUUID(), number: 2 }),
      () => branches.batchGetBranches({ caller: stranger, spaceId, changeRequestIds: [branch.id] }),
      () => merge(branch.id, stranger),
      () => update(branch.id, stranger),
      () => clients.revisions.getRevision({ caller: stranger, ref: crRef(branch.id), options: readAll }),
      () => clients.editing.openDraft({ caller: stranger, spaceId, parentRevisionId: "", changeRequestId: branch.id }),
    ];
    for (const call of calls) expect(await failure(call())).toMatchObject({ code: "not_found", message: "Space not found" });

    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect(await errorCode(branches.createBranch({ caller: reader.caller, spaceId, changeRequestId: randomUUID(), number: 2 }))).toBe("permission_denied");
    expect(await errorCode(openOnBranch(branch.id, reader.caller))).toBe("permission_denied");
    expect((await branches.batchGetBranches({ caller: reader.caller, spaceId, changeRequestIds: [branch.id] })).branches).toHaveLength(1);
    expect((await clients.revisions.getRevision({ caller: reader.caller, ref: crRef("1"), options: readAll })).revision!.id).toBe(branch.headRevisionId);

    const editor = await createMember(harness, org.organizationId, { role: "edit" });
    expect(await errorCode(merge(branch.id, editor.caller))).toBe("permission_denied");
    expect((await update(branch.id, editor.caller)).revisionId).toBe(branch.headRevisionId);
    const reviewer = await createMember(harness, org.organizationId, { role: "review" });
    expect((await merge(branch.id, reviewer.caller)).branch!.mergedRevisionId).not.toBe("");
  });

  it("asks at most 1000 ids per batch", async () => {
    const ids = Array.from({ length: 1001 }, () => randomUUID());
    expect(await failure(branches.batchGetBranches({ caller: owner(), spaceId, changeRequestIds: ids }))).toMatchObject({ code: "invalid_argument" });
  });
});

describe("space counters", () => {
  /** Publishes an event as the collaboration service would (its stream exists: content's consumer made sure of it). */
  async function publishCollaborationEvent(payload: Record<string, unknown>): Promise<void> {
    const id = randomUUID();
    const subject = "imprint.collaboration.v1.change_request.created";
    const envelope = {
      id,
      type: "change_request.created",
      subject,
      occurredAt: new Date().toISOString(),
      organizationId: org.organizationId,
      actor: null,
      payload,
    };
    await jetstream(nc).publish(subject, JSON.stringify(envelope), { msgID: id });
  }
  const counters = async () => {
    const space = (await harness.spaces.getSpace({ caller: owner(), spaceId, shareKey: "" })).space!;
    return [space.changeRequests, space.changeRequestsOpen, space.changeRequestsDraft, space.comments];
  };

  it("follow the collaboration events' counters, keeping the highest version", async () => {
    await publishCollaborationEvent({ spaceId, spaceCounters: { changeRequests: 2, changeRequestsOpen: 1, changeRequestsDraft: 1, comments: 5, version: 4 } });
    await eventually(async () => ((await counters()).join() === "2,1,1,5" ? true : undefined), 10_000);
    // An older version arriving late changes nothing; an event without counters is skipped.
    await publishCollaborationEvent({ spaceId, spaceCounters: { changeRequests: 1, changeRequestsOpen: 1, changeRequestsDraft: 0, comments: 0, version: 3 } });
    await publishCollaborationEvent({ spaceId, commentId: randomUUID() });
    await publishCollaborationEvent({ spaceId, spaceCounters: { changeRequests: 3, changeRequestsOpen: 2, changeRequestsDraft: 1, comments: 6, version: 5 } });
    await eventually(async () => ((await counters()).join() === "3,2,1,6" ? true : undefined), 10_000);
    const [row] = await harness.content.orm.em.fork().execute<{ counters_version: string }[]>("select counters_version from spaces where id = ?", [spaceId]);
    expect(Number(row!.counters_version)).toBe(5);
  });
});

describe("duplication and purge", () => {
  it("a duplicate has no change requests; purging a space removes its branches", async () => {
    const branch = await createBranch(1);
    await editBranch(branch.id, (draftId) => createPage(owner(), draftId, { title: "On the branch" }));
    const copy = (await harness.spaces.duplicateSpace({ caller: owner(), spaceId })).space!;
    expect(
      await errorCode(clients.revisions.getRevision({ caller: owner(), ref: { spaceId: copy.id, changeRequestId: "1", revisionId: "" }, options: readAll })),
    ).toBe("not_found");
    expect((await branches.batchGetBranches({ caller: owner(), spaceId: copy.id, changeRequestIds: [branch.id] })).branches).toEqual([]);

    await harness.spaces.deleteSpace({ caller: owner(), spaceId });
    harness.clock.advanceDays(8);
    expect((await harness.spaces.purgeDeletedSpaces({})).spaceIds).toContain(spaceId);
    const rows = await harness.content.orm.em.fork().execute<{ count: string }[]>("select count(*) as count from branches where space_id = ?", [spaceId]);
    expect(Number(rows[0]!.count)).toBe(0);
    const revisions = await harness.content.orm.em
      .fork()
      .execute<{ count: string }[]>("select count(*) as count from revisions where branch_id = ?", [branch.id]);
    expect(Number(revisions[0]!.count)).toBe(0);
  });
});
