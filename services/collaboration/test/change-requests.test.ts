import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ChangeRequestOrder,
  ChangeRequestStatus,
  type ListChangeRequestsRequest,
  UpdateChangeRequestRequest,
} from "@imprint/proto/collaboration/v1/change_requests";
import { CommentFormat, CommentStatus, UpdateCommentReplyRequest } from "@imprint/proto/collaboration/v1/comments";
import {
  createChangeRequest,
  eventually,
  createMember,
  createPage,
  createOrganization,
  createSpace,
  failure,
  pageMarkdown,
  setPageMarkdown,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

let harness: CollaborationHarness;
let org: TestOrganization;
let editor: TestUser;
let reviewer: TestUser;
let reader: TestUser;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit", displayName: "Edith Editor" });
  reviewer = await createMember(harness, org.organizationId, { role: "review", displayName: "Rob Reviewer" });
  reader = await createMember(harness, org.organizationId, { role: "read", displayName: "Rita Reader" });
});
afterAll(() => harness?.stop());

/** A space whose content holds one page, "Guide". */
async function spaceWithGuide(): Promise<{ spaceId: string; pageId: string }> {
  const space = await createSpace(harness, org);
  const pageId = await createPage(
    harness,
    org.owner.caller,
    { spaceId: space.id },
    { title: "Guide", markdown: "# Guide\n\nFirst paragraph.\n\nSecond paragraph.\n" },
  );
  return { spaceId: space.id, pageId };
}

const create = (user: TestUser, spaceId: string, subject = "Improve the guide") => createChangeRequest(harness, user.caller, spaceId, { subject });

const get = (user: TestUser, spaceId: string, changeRequestId: string) =>
  harness.changeRequests.getChangeRequest({ caller: user.caller, spaceId, changeRequestId }).then((answer) => answer.changeRequest!);

const list = (user: TestUser, spaceId: string, fields: Partial<ListChangeRequestsRequest> = {}) =>
  harness.changeRequests.listChangeRequests({
    caller: user.caller,
    spaceId,
    status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_UNSPECIFIED,
    creatorUserId: "",
    contributorUserId: "",
    requestedReviewerUserId: "",
    orderBy: ChangeRequestOrder.CHANGE_REQUEST_ORDER_UNSPECIFIED,
    page: undefined,
    ...fields,
  });

/** Changes the fields given, named in the update mask. */
const update = (user: TestUser, spaceId: string, changeRequestId: string, fields: Partial<UpdateChangeRequestRequest>) =>
  harness.changeRequests
    .updateChangeRequest(UpdateChangeRequestRequest.fromPartial({ caller: user.caller, spaceId, changeRequestId, ...fields, updateMask: Object.keys(fields) }))
    .then((answer) => answer.changeRequest!);

const merge = (user: TestUser, spaceId: string, changeRequestId: string) =>
  harness.changeRequests.mergeChangeRequest({ caller: user.caller, spaceId, changeRequestId });

const spaceRevision = async (spaceId: string) => (await harness.spaces.getSpace({ caller: org.owner.caller, spaceId, shareKey: "" })).space!.revisionId;

describe("creating and reading change requests", () => {
  it("numbers change requests 1, 2, 3 per space, each with a branch forked from the space's revision", async () => {
    const { spaceId } = await spaceWithGuide();
    const revision = await spaceRevision(spaceId);
    const first = await create(editor, spaceId, "First");
    const second = await create(org.owner, spaceId, "Second");
    const third = await create(editor, spaceId, "");
    expect([first.number, second.number, third.number]).toEqual([1, 2, 3]);
    expect(first).toMatchObject({
      spaceId,
      organizationId: org.organizationId,
      status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN,
      subject: "First",
      description: "",
      descriptionDocumentJson: "",
      createdBy: { id: editor.userId, displayName: "Edith Editor" },
      initialRevisionId: revision,
      revisionId: revision,
      mergedAncestorRevisionId: "",
      mergedRevisionId: "",
      comments: 0,
      outdated: false,
      mergedAt: undefined,
    });
    expect(first.createdAt).toBeInstanceOf(Date);
    // Another space counts from 1 again.
    const { spaceId: otherSpace } = await spaceWithGuide();
    expect((await create(editor, otherSpace)).number).toBe(1);
  });

  it("gives concurrent creations distinct numbers and skips a number an orphan branch holds", async () => {
    const { spaceId } = await spaceWithGuide();
    const numbers = await Promise.all([1, 2, 3, 4].map(() => create(editor, spaceId).then((created) => created.number)));
    expect(numbers.sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
    // A creation that failed after content forked its branch leaves the branch holding number 5.
    await harness.branches.createBranch({ caller: editor.caller, spaceId, changeRequestId: randomUUID(), number: 5 });
    expect((await create(editor, spaceId)).number).toBe(6);
    expect((await create(editor, spaceId)).number).toBe(7);
  });

  it("answers a change request by id or by number, and nothing of other spaces or organizations", async () => {
    const { spaceId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    expect(await get(reader, spaceId, created.id)).toEqual(created);
    expect(await get(reader, spaceId, String(created.number))).toEqual(created);
    expect(await failure(get(reader, spaceId, "2"))).toMatchObject({ code: "not_found", message: "Change request not found" });
    expect(await failure(get(reader, spaceId, "first"))).toMatchObject({ code: "not_found" });
    const { spaceId: otherSpace } = await spaceWithGuide();
    expect(await failure(get(reader, otherSpace, created.id))).toMatchObject({ code: "not_found" });
    const stranger = await createOrganization(harness);
    expect(await failure(get(stranger.owner, spaceId, created.id))).toMatchObject({ code: "not_found", message: "Space not found" });
    expect(await failure(list(stranger.owner, spaceId))).toMatchObject({ code: "not_found" });
    expect(await failure(create(stranger.owner, spaceId))).toMatchObject({ code: "not_found" });
  });

  it("needs the edit right to create, and checks the subject", async () => {
    const { spaceId } = await spaceWithGuide();
    expect(await failure(create(reader, spaceId))).toMatchObject({ code: "permission_denied" });
    expect(await failure(create(editor, spaceId, "x".repeat(101)))).toMatchObject({
      code: "invalid_argument",
      message: "subject: must be at most 100 characters",
    });
    const withTask = await harness.changeRequests.createChangeRequest({ caller: editor.caller, spaceId, subject: "x".repeat(100), agentTaskId: "task-42" });
    expect(withTask.changeRequest).toMatchObject({ number: 1, agentTaskId: "task-42" });
  });
});

describe("listing change requests", () => {
  it("lists open ones by default, newest activity first, with status, creator and contributor filters", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const one = await create(editor, spaceId, "one");
    const two = await create(org.owner, spaceId, "two");
    const three = await create(editor, spaceId, "three");
    await update(editor, spaceId, two.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT });
    await update(editor, spaceId, three.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_ARCHIVED });
    const subjects = (answer: Awaited<ReturnType<typeof list>>) => answer.changeRequests.map((changeRequest) => changeRequest.subject);

    expect(subjects(await list(reader, spaceId))).toEqual(["one"]);
    expect(subjects(await list(reader, spaceId, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT }))).toEqual(["two"]);
    expect(subjects(await list(reader, spaceId, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_ARCHIVED }))).toEqual(["three"]);

    await update(editor, spaceId, two.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN });
    await update(editor, spaceId, three.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN });
    expect(subjects(await list(reader, spaceId))).toEqual(["three", "two", "one"]);
    await update(org.owner, spaceId, one.id, { subject: "one, renamed" });
    expect(subjects(await list(reader, spaceId))).toEqual(["one, renamed", "three", "two"]);
    expect(subjects(await list(reader, spaceId, { orderBy: ChangeRequestOrder.CHANGE_REQUEST_ORDER_CREATED_AT }))).toEqual(["three", "two", "one, renamed"]);
    expect(subjects(await list(reader, spaceId, { creatorUserId: org.owner.userId }))).toEqual(["two"]);
    expect(subjects(await list(reader, spaceId, { creatorUserId: "nobody" }))).toEqual([]);

    // A commit on a change request's branch makes its author a contributor.
    expect(subjects(await list(reader, spaceId, { contributorUserId: org.owner.userId }))).toEqual(["two"]);
    await setPageMarkdown(harness, org.owner.caller, { spaceId, changeRequestId: three.id }, pageId, "# Guide\n\nChanged.\n");
    await eventually(async () => subjects(await list(reader, spaceId, { contributorUserId: org.owner.userId })).length === 2);
    expect(subjects(await list(reader, spaceId, { contributorUserId: org.owner.userId }))).toEqual(["three", "two"]);

    const first = await list(reader, spaceId, { page: { pageToken: "", pageSize: 2 } });
    expect(subjects(first)).toEqual(["three", "one, renamed"]);
    expect(first.page!.totalCount).toBe(3);
    const rest = await list(reader, spaceId, { page: { pageToken: first.page!.nextPageToken, pageSize: 2 } });
    expect(subjects(rest)).toEqual(["two"]);
    expect(rest.page!.nextPageToken).toBe("");
  });
});

describe("updating change requests", () => {
  it("changes subject, description and status within limits; merged only through merge", async () => {
    const { spaceId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    const changed = await update(editor, spaceId, String(created.number), { subject: "Better", description: "Fixes **typos**." });
    expect(changed).toMatchObject({ subject: "Better", description: "Fixes **typos**." });
    expect(JSON.parse(changed.descriptionDocumentJson)).toMatchObject({ object: "document", nodes: [{ type: "paragraph" }] });
    expect(changed.updatedAt!.getTime()).toBeGreaterThan(created.updatedAt!.getTime());
    expect(await failure(update(editor, spaceId, created.id, { subject: "x".repeat(101) }))).toMatchObject({
      code: "invalid_argument",
      message: "subject: must be at most 100 characters",
    });
    expect(await failure(update(editor, spaceId, created.id, { description: "x".repeat(10_001) }))).toMatchObject({
      code: "invalid_argument",
      message: "description: must be at most 10,000 characters",
    });
    expect(await failure(update(editor, spaceId, created.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED }))).toMatchObject({
      code: "invalid_argument",
      message: "status: a change request is merged only through merge",
    });
    expect(await failure(update(reader, spaceId, created.id, { subject: "Mine" }))).toMatchObject({ code: "permission_denied" });
  });

  it("refuses to merge an archived change request and to change a merged one", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    await setPageMarkdown(harness, editor.caller, { spaceId, changeRequestId: created.id }, pageId, "# Guide\n\nRewritten.\n");
    await update(editor, spaceId, created.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_ARCHIVED });
    expect(await failure(merge(reviewer, spaceId, created.id))).toMatchObject({ code: "failed_precondition" });
    await update(editor, spaceId, created.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT });
    await merge(reviewer, spaceId, created.id);
    expect(await failure(update(editor, spaceId, created.id, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN }))).toMatchObject({
      code: "failed_precondition",
    });
    expect(await failure(update(editor, spaceId, created.id, { subject: "Too late" }))).toMatchObject({ code: "failed_precondition" });
  });

  it("changes exactly the fields its update mask names", async () => {
    const { spaceId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    await update(editor, spaceId, created.id, { subject: "Kept", description: "Kept too." });
    const masked = (fields: Partial<UpdateChangeRequestRequest>, updateMask: string[]) =>
      harness.changeRequests.updateChangeRequest(
        UpdateChangeRequestRequest.fromPartial({ caller: editor.caller, spaceId, changeRequestId: created.id, ...fields, updateMask }),
      );

    const unknown = await failure(masked({ subject: "Any" }, ["subject", "number"]));
    expect(unknown).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^update_mask: unknown field "number"/) });

    // Values beside an unnamed field are ignored: only the status changes.
    const drafted = (await masked({ subject: "", description: "", status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT }, ["status"])).changeRequest!;
    expect(drafted).toMatchObject({ subject: "Kept", description: "Kept too.", status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT });

    // A named empty field clears it.
    const cleared = (await masked({ description: "" }, ["description"])).changeRequest!;
    expect(cleared).toMatchObject({ subject: "Kept", description: "", status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT });

    // A named status must be one (unspecified is not), and an empty mask changes nothing.
    expect(await failure(masked({}, ["status"]))).toMatchObject({ code: "invalid_argument", message: "status: must be draft, open or archived" });
    expect((await masked({ subject: "Ignored" }, [])).changeRequest).toMatchObject({ subject: "Kept", updatedAt: cleared.updatedAt });
  });
});

describe("merging and updating from main", () => {
  it("merges an edit made on the branch into the space; merging again answers the same merge", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    await setPageMarkdown(
      harness,
      editor.caller,
      { spaceId, changeRequestId: created.id },
      pageId,
      "# Guide\n\nFirst paragraph, improved.\n\nSecond paragraph.\n",
    );
    expect(await pageMarkdown(harness, reader.caller, { spaceId }, pageId)).toContain("First paragraph.");
    const branchHead = (await get(reader, spaceId, created.id)).revisionId;
    expect(branchHead).not.toBe(created.revisionId);

    expect(await failure(merge(editor, spaceId, created.id))).toMatchObject({ code: "permission_denied" });
    const merged = await merge(reviewer, spaceId, "1");
    expect(merged.revisionId).toBe(await spaceRevision(spaceId));
    expect(merged.changeRequest).toMatchObject({
      status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED,
      mergedRevisionId: merged.revisionId,
      outdated: false,
    });
    expect(merged.changeRequest!.mergedAt).toBeInstanceOf(Date);
    expect(await pageMarkdown(harness, reader.caller, { spaceId }, pageId)).toContain("First paragraph, improved.");
    expect((await merge(reviewer, spaceId, created.id)).revisionId).toBe(merged.revisionId);
    expect(await get(reader, spaceId, created.id)).toMatchObject({
      status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED,
      mergedRevisionId: merged.revisionId,
    });
    expect(
      (await list(reader, spaceId, { status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED, contributorUserId: reviewer.userId })).changeRequests,
    ).toHaveLength(1);
  });

  it("is outdated once the space moved on, until updated from main", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    await createPage(harness, org.owner.caller, { spaceId }, { title: "News", markdown: "Fresh.\n" });
    const outdated = await get(reader, spaceId, created.id);
    expect(outdated.outdated).toBe(true);
    const updated = await harness.changeRequests.updateChangeRequestFromMain({ caller: editor.caller, spaceId, changeRequestId: String(created.number) });
    expect(updated.changeRequest).toMatchObject({ outdated: false, mergedAncestorRevisionId: await spaceRevision(spaceId), revisionId: updated.revisionId });
    expect((await get(reader, spaceId, created.id)).outdated).toBe(false);
    expect(await pageMarkdown(harness, reader.caller, { spaceId, changeRequestId: created.id }, pageId)).toContain("First paragraph.");
    expect(await failure(harness.changeRequests.updateChangeRequestFromMain({ caller: reader.caller, spaceId, changeRequestId: created.id }))).toMatchObject({
      code: "permission_denied",
    });
  });

  it("passes content's conflict through untouched and changes nothing", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    await setPageMarkdown(
      harness,
      editor.caller,
      { spaceId, changeRequestId: created.id },
      pageId,
      "# Guide\n\nFirst paragraph, branch.\n\nSecond paragraph.\n",
    );
    await setPageMarkdown(harness, org.owner.caller, { spaceId }, pageId, "# Guide\n\nFirst paragraph, main.\n\nSecond paragraph.\n");
    const before = await spaceRevision(spaceId);
    const conflict = await failure(merge(reviewer, spaceId, created.id));
    expect(conflict.code).toBe("conflict");
    expect(conflict.message).toContain("Guide");
    expect(await spaceRevision(spaceId)).toBe(before);
    expect((await get(reader, spaceId, created.id)).status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN);
  });
});

describe("comments on a change request", () => {
  it("keeps them apart from the space's, counts the open ones, and lets a reply resolve its comment", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const created = await create(editor, spaceId);
    const scope = { spaceId, changeRequestId: String(created.number) };
    const { comment } = await harness.comments.postComment({
      caller: reviewer.caller,
      scope,
      pageId,
      nodeId: "guide",
      markdown: "Why this change?",
      format: CommentFormat.COMMENT_FORMAT_MARKDOWN,
    });
    expect(comment).toMatchObject({
      changeRequestId: created.id,
      changeRequestNumber: 1,
      target: { nodeId: "guide", nodePreview: "Guide", page: { id: pageId } },
    });
    expect(comment!.target!.revisionId).toBe(created.revisionId);
    const listAll = (changeRequestId: string) =>
      harness.comments.listComments({
        caller: reader.caller,
        scope: { spaceId, changeRequestId },
        order: 0,
        status: CommentStatus.COMMENT_STATUS_UNSPECIFIED,
        targetPageId: "",
        authorUserIds: [],
        format: 0,
        page: undefined,
      });
    expect((await listAll(created.id)).comments.map((entry) => entry.id)).toEqual([comment!.id]);
    expect((await listAll("")).comments).toEqual([]);
    expect(
      await failure(harness.comments.getComment({ caller: reader.caller, scope: { spaceId, changeRequestId: "" }, commentId: comment!.id, format: 0 })),
    ).toMatchObject({
      code: "not_found",
    });
    expect((await get(reader, spaceId, created.id)).comments).toBe(1);

    const { reply } = await harness.comments.postCommentReply({ caller: editor.caller, scope, commentId: comment!.id, markdown: "Typos.", format: 0 });
    await harness.comments.updateCommentReply(
      UpdateCommentReplyRequest.fromPartial({
        caller: editor.caller,
        scope,
        commentId: comment!.id,
        replyId: reply!.id,
        resolved: true,
        updateMask: ["resolved"],
        addedReactions: [],
        removedReactions: [],
        format: 0,
      }),
    );
    const resolved = (await harness.comments.getComment({ caller: reader.caller, scope, commentId: comment!.id, format: 0 })).comment!;
    expect(resolved).toMatchObject({ status: CommentStatus.COMMENT_STATUS_RESOLVED, resolvedBy: { id: editor.userId } });
    expect((await get(reader, spaceId, created.id)).comments).toBe(0);
    const commenters = await harness.comments.listCommenters({ caller: reader.caller, scope, page: undefined });
    expect(commenters.members.map((member) => member.user!.id)).toEqual([reviewer.userId, editor.userId]);
  });
});
