import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SortOrder } from "@imprint/proto/common/v1";
import {
  CommentFormat,
  CommentStatus,
  type ListCommentsRequest,
  type PostCommentRequest,
  UpdateCommentRequest,
  UpdateCommentReplyRequest,
} from "@imprint/proto/collaboration/v1/comments";
import { MemberRole } from "@imprint/proto/identity/v1";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";
import {
  createMember,
  createPage,
  createOrganization,
  createSpace,
  failure,
  setPageMarkdown,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";

let harness: CollaborationHarness;
let org: TestOrganization;
let commenter: TestUser;
let other: TestUser;
let reader: TestUser;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
  commenter = await createMember(harness, org.organizationId, { role: "comment", displayName: "Cora Commenter" });
  other = await createMember(harness, org.organizationId, { role: "comment", displayName: "Otto Other" });
  reader = await createMember(harness, org.organizationId, { role: "read", displayName: "Rita Reader" });
});
afterAll(() => harness?.stop());

const GUIDE = "# Install\n\nRun the installer first.\n\n## Configure\n\nEdit the settings file.\n";

/** A space with one page whose document has the headings `install` and `configure`. */
async function spaceWithGuide(): Promise<{ spaceId: string; pageId: string }> {
  const space = await createSpace(harness, org);
  const pageId = await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Guide", markdown: GUIDE });
  return { spaceId: space.id, pageId };
}

const post = (user: TestUser, scope: { spaceId: string; changeRequestId?: string }, fields: Partial<PostCommentRequest> = {}) =>
  harness.comments.postComment({
    caller: user.caller,
    scope: { spaceId: scope.spaceId, changeRequestId: scope.changeRequestId ?? "" },
    pageId: "",
    nodeId: "",
    markdown: "Looks good",
    format: CommentFormat.COMMENT_FORMAT_UNSPECIFIED,
    ...fields,
  });

const list = (user: TestUser, scope: { spaceId: string; changeRequestId?: string }, fields: Partial<ListCommentsRequest> = {}) =>
  harness.comments.listComments({
    caller: user.caller,
    scope: { spaceId: scope.spaceId, changeRequestId: scope.changeRequestId ?? "" },
    order: SortOrder.SORT_ORDER_UNSPECIFIED,
    status: CommentStatus.COMMENT_STATUS_UNSPECIFIED,
    targetPageId: "",
    authorUserIds: [],
    format: CommentFormat.COMMENT_FORMAT_UNSPECIFIED,
    page: undefined,
    ...fields,
  });

const update = (
  user: TestUser,
  spaceId: string,
  commentId: string,
  fields: { resolved?: boolean; markdown?: string; addedReactions?: string[]; removedReactions?: string[] },
) =>
  harness.comments.updateComment(
    UpdateCommentRequest.fromPartial({
      caller: user.caller,
      scope: { spaceId, changeRequestId: "" },
      commentId,
      addedReactions: [],
      removedReactions: [],
      format: CommentFormat.COMMENT_FORMAT_UNSPECIFIED,
      ...fields,
      // The fields given are named; reactions are changes themselves, never in the mask.
      updateMask: (["resolved", "markdown"] as const).filter((field) => fields[field] !== undefined),
    }),
  );

describe("posting comments", () => {
  it("posts on a page node with a preview of its text, a snapshot of the page and both body forms", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId }, { pageId, nodeId: "configure", markdown: "Which **file**?" });
    expect(comment).toMatchObject({
      spaceId,
      changeRequestId: "",
      organizationId: org.organizationId,
      postedBy: { id: commenter.userId, displayName: "Cora Commenter" },
      replies: 0,
      status: CommentStatus.COMMENT_STATUS_OPEN,
      permissions: { view: true, edit: true, reply: true, delete: true },
      target: { nodeId: "configure", nodePreview: "Configure", page: { id: pageId, title: "Guide", path: "guide", outdated: false } },
    });
    expect(comment!.target!.revisionId).not.toBe("");
    expect(comment!.body!.markdown).toBe("Which **file**?");
    const document = JSON.parse(comment!.body!.documentJson) as {
      object: string;
      nodes: { type: string; nodes: { leaves: { text: string; marks: { type: string }[] }[] }[] }[];
    };
    expect(document.object).toBe("document");
    expect(document.nodes[0]!.type).toBe("paragraph");
    expect(document.nodes[0]!.nodes[0]!.leaves[1]).toMatchObject({ text: "file", marks: [{ type: "bold" }] });
    const markdownOnly = await harness.comments.getComment({
      caller: reader.caller,
      scope: { spaceId, changeRequestId: "" },
      commentId: comment!.id,
      format: CommentFormat.COMMENT_FORMAT_MARKDOWN,
    });
    expect(markdownOnly.comment!.body).toEqual({ markdown: "Which **file**?", documentJson: "" });
    // A reader sees it but may neither reply nor change it.
    expect(markdownOnly.comment!.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
  });

  it("posts on the space as a whole, on the space's current revision", async () => {
    const { spaceId } = await spaceWithGuide();
    const { space } = await harness.spaces.getSpace({ caller: org.owner.caller, spaceId, shareKey: "" });
    const { comment } = await post(commenter, { spaceId });
    expect(comment!.target).toEqual({ nodeId: "", nodePreview: "", page: undefined, revisionId: space!.revisionId });
  });

  it("rejects bad bodies and targets, naming the field", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    expect(await failure(post(commenter, { spaceId }, { markdown: "  " }))).toMatchObject({ code: "invalid_argument", message: "markdown: must not be empty" });
    expect(await failure(post(commenter, { spaceId }, { markdown: "x".repeat(10_001) }))).toMatchObject({
      code: "invalid_argument",
      message: "markdown: must be at most 10,000 characters",
    });
    expect((await post(commenter, { spaceId }, { markdown: "x".repeat(10_000) })).comment!.body!.markdown).toHaveLength(10_000);
    expect(await failure(post(commenter, { spaceId }, { nodeId: "install" }))).toMatchObject({ code: "invalid_argument", message: "node: needs a page" });
    expect(await failure(post(commenter, { spaceId }, { pageId, nodeId: "nowhere" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^node: /),
    });
    expect(await failure(post(commenter, { spaceId }, { pageId: "no-such-page" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^page: /),
    });
  });

  it("needs the comment right to post; another organization's space is not found", async () => {
    const { spaceId } = await spaceWithGuide();
    expect(await failure(post(reader, { spaceId }))).toMatchObject({ code: "permission_denied" });
    const stranger = await createOrganization(harness);
    expect(await failure(post(stranger.owner, { spaceId }))).toMatchObject({ code: "not_found" });
    const { comment } = await post(commenter, { spaceId });
    expect(
      await failure(harness.comments.getComment({ caller: stranger.owner.caller, scope: { spaceId, changeRequestId: "" }, commentId: comment!.id, format: 0 })),
    ).toMatchObject({
      code: "not_found",
    });
    expect(await failure(list(stranger.owner, { spaceId }))).toMatchObject({ code: "not_found" });
  });
});

describe("listing comments", () => {
  it("filters by status, page and authors, orders both ways and pages", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const first = (await post(commenter, { spaceId }, { pageId, markdown: "first" })).comment!;
    const second = (await post(other, { spaceId }, { markdown: "second" })).comment!;
    const third = (await post(commenter, { spaceId }, { pageId, nodeId: "install", markdown: "third" })).comment!;
    await update(other, spaceId, second.id, { resolved: true });
    const bodies = (answer: Awaited<ReturnType<typeof list>>) => answer.comments.map((comment) => comment.body!.markdown);

    expect(bodies(await list(reader, { spaceId }))).toEqual(["third", "second", "first"]);
    expect(bodies(await list(reader, { spaceId }, { order: SortOrder.SORT_ORDER_ASC }))).toEqual(["first", "second", "third"]);
    expect(bodies(await list(reader, { spaceId }, { status: CommentStatus.COMMENT_STATUS_OPEN }))).toEqual(["third", "first"]);
    expect(bodies(await list(reader, { spaceId }, { status: CommentStatus.COMMENT_STATUS_RESOLVED }))).toEqual(["second"]);
    expect(bodies(await list(reader, { spaceId }, { targetPageId: pageId }))).toEqual(["third", "first"]);
    expect(bodies(await list(reader, { spaceId }, { authorUserIds: [other.userId] }))).toEqual(["second"]);
    expect(bodies(await list(reader, { spaceId }, { authorUserIds: [other.userId, commenter.userId], status: CommentStatus.COMMENT_STATUS_OPEN }))).toEqual([
      "third",
      "first",
    ]);
    const markdownOnly = await list(reader, { spaceId }, { format: CommentFormat.COMMENT_FORMAT_MARKDOWN });
    expect(markdownOnly.comments.every((comment) => comment.body!.documentJson === "")).toBe(true);

    const page1 = await list(reader, { spaceId }, { page: { pageToken: "", pageSize: 2 } });
    expect(page1.comments.map((comment) => comment.id)).toEqual([third.id, second.id]);
    expect(page1.page!.totalCount).toBe(3);
    const page2 = await list(reader, { spaceId }, { page: { pageToken: page1.page!.nextPageToken, pageSize: 2 } });
    expect(page2.comments.map((comment) => comment.id)).toEqual([first.id]);
    expect(page2.page!.nextPageToken).toBe("");
    expect(
      await failure(list(reader, { spaceId }, { order: SortOrder.SORT_ORDER_ASC, page: { pageToken: page1.page!.nextPageToken, pageSize: 2 } })),
    ).toMatchObject({
      code: "invalid_argument",
    });
  });

  it("shows a page as outdated once it changed after the comment, and as it was once it is gone", async () => {
    const { spaceId, pageId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId }, { pageId });
    expect(comment!.target!.page!.outdated).toBe(false);
    await setPageMarkdown(harness, org.owner.caller, { spaceId }, pageId, "# Install\n\nNew text.\n");
    const [changed] = (await list(reader, { spaceId })).comments;
    expect(changed!.target!.page).toMatchObject({ id: pageId, title: "Guide", outdated: true });
  });
});

describe("changing comments", () => {
  it("lets authors and space admins edit, and nobody else", async () => {
    const { spaceId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId }, { markdown: "draft" });
    expect(comment!.editedAt).toBeUndefined();
    const edited = (await update(commenter, spaceId, comment!.id, { markdown: "final" })).comment!;
    expect(edited.body!.markdown).toBe("final");
    expect(edited.editedAt).toBeInstanceOf(Date);
    expect(await failure(update(other, spaceId, comment!.id, { markdown: "hijacked" }))).toMatchObject({ code: "permission_denied" });
    expect((await update(org.owner, spaceId, comment!.id, { markdown: "moderated" })).comment!.body!.markdown).toBe("moderated");
    expect(await failure(update(commenter, spaceId, comment!.id, { markdown: "" }))).toMatchObject({ code: "invalid_argument" });
  });

  it("resolves and reopens, recording who and when", async () => {
    const { spaceId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId });
    const resolved = (await update(other, spaceId, comment!.id, { resolved: true })).comment!;
    expect(resolved.status).toBe(CommentStatus.COMMENT_STATUS_RESOLVED);
    expect(resolved.resolvedBy).toMatchObject({ id: other.userId, displayName: "Otto Other" });
    expect(resolved.resolvedAt).toBeInstanceOf(Date);
    const reopened = (await update(commenter, spaceId, comment!.id, { resolved: false })).comment!;
    expect(reopened).toMatchObject({ status: CommentStatus.COMMENT_STATUS_OPEN, resolvedAt: undefined, resolvedBy: undefined });
    expect(await failure(update(reader, spaceId, comment!.id, { resolved: true }))).toMatchObject({ code: "permission_denied" });
  });

  it("changes exactly the fields its update mask names", async () => {
    const { spaceId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId }, { markdown: "as posted" });
    const masked = (fields: Partial<UpdateCommentRequest>, updateMask: string[]) =>
      harness.comments.updateComment(
        UpdateCommentRequest.fromPartial({ caller: commenter.caller, scope: { spaceId, changeRequestId: "" }, commentId: comment!.id, ...fields, updateMask }),
      );

    const unknown = await failure(masked({ markdown: "any" }, ["markdown", "authorId"]));
    expect(unknown).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^update_mask: unknown field "authorId"/) });

    // The body beside an unnamed markdown is ignored: only the resolution changes.
    const resolved = (await masked({ resolved: true, markdown: "" }, ["resolved"])).comment!;
    expect(resolved).toMatchObject({ status: CommentStatus.COMMENT_STATUS_RESOLVED, body: { markdown: "as posted" }, editedAt: undefined });

    // A named empty resolution reopens; the reaction, a change itself, applies with an empty mask too.
    const reopened = (await masked({ resolved: false }, ["resolved"])).comment!;
    expect(reopened).toMatchObject({ status: CommentStatus.COMMENT_STATUS_OPEN, resolvedBy: undefined });
    const reacted = (await masked({ resolved: true, addedReactions: ["👍"] }, [])).comment!;
    expect(reacted).toMatchObject({ status: CommentStatus.COMMENT_STATUS_OPEN, reactions: [{ emoji: "👍" }] });

    const reply = (
      await harness.comments.postCommentReply({
        caller: commenter.caller,
        scope: { spaceId, changeRequestId: "" },
        commentId: comment!.id,
        markdown: "reply",
        format: 0,
      })
    ).reply!;
    const replyUpdate = (fields: Partial<UpdateCommentReplyRequest>, updateMask: string[]) =>
      harness.comments.updateCommentReply(
        UpdateCommentReplyRequest.fromPartial({
          caller: commenter.caller,
          scope: { spaceId, changeRequestId: "" },
          commentId: comment!.id,
          replyId: reply.id,
          ...fields,
          updateMask,
        }),
      );
    expect(await failure(replyUpdate({}, ["body"]))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/^update_mask: unknown field "body"/),
    });
    // An unnamed resolution is ignored (a named one is refused on a space's comment).
    const edited = (await replyUpdate({ markdown: "reply, edited", resolved: true }, ["markdown"])).reply!;
    expect(edited.body!.markdown).toBe("reply, edited");
    expect(
      (await harness.comments.getComment({ caller: commenter.caller, scope: { spaceId, changeRequestId: "" }, commentId: comment!.id, format: 0 })).comment!
        .status,
    ).toBe(CommentStatus.COMMENT_STATUS_OPEN);
  });

  it("adds and removes the caller's reactions; adding twice changes nothing", async () => {
    const { spaceId } = await spaceWithGuide();
    const { comment } = await post(commenter, { spaceId });
    await update(commenter, spaceId, comment!.id, { addedReactions: ["👍"] });
    await update(other, spaceId, comment!.id, { addedReactions: ["🎉", "👍"] });
    const twice = (await update(other, spaceId, comment!.id, { addedReactions: ["👍"] })).comment!;
    expect(twice.reactions.map((reaction) => [reaction.emoji, reaction.users.map((entry) => entry.user!.id)])).toEqual([
      ["👍", [commenter.userId, other.userId]],
      ["🎉", [other.userId]],
    ]);
    expect(twice.reactions[0]!.users[0]!.reactedAt).toBeInstanceOf(Date);
    const removed = (await update(other, spaceId, comment!.id, { removedReactions: ["👍", "🚀"] })).comment!;
    expect(removed.reactions.map((reaction) => [reaction.emoji, reaction.users.length])).toEqual([
      ["👍", 1],
      ["🎉", 1],
    ]);
    expect(await failure(update(other, spaceId, comment!.id, { addedReactions: ["x".repeat(51)] }))).toMatchObject({
      code: "invalid_argument",
      message: "addedReactions: each emoji must be 1 to 50 characters",
    });
    expect(await failure(update(other, spaceId, comment!.id, { removedReactions: Array.from({ length: 101 }, (_, index) => `e${index}`) }))).toMatchObject({
      code: "invalid_argument",
      message: "removedReactions: must contain at most 100 items",
    });
    expect(await failure(update(reader, spaceId, comment!.id, { addedReactions: ["👍"] }))).toMatchObject({ code: "permission_denied" });
  });

  it("deletes with replies for authors and admins only; a missing comment is not deleted", async () => {
    const { spaceId } = await spaceWithGuide();
    const scope = { spaceId, changeRequestId: "" };
    const { comment } = await post(commenter, { spaceId });
    await harness.comments.postCommentReply({ caller: other.caller, scope, commentId: comment!.id, markdown: "reply", format: 0 });
    expect(await failure(harness.comments.deleteComment({ caller: other.caller, scope, commentId: comment!.id }))).toMatchObject({ code: "permission_denied" });
    expect(await harness.comments.deleteComment({ caller: org.owner.caller, scope, commentId: comment!.id })).toEqual({ deleted: true });
    expect(await harness.comments.deleteComment({ caller: org.owner.caller, scope, commentId: comment!.id })).toEqual({ deleted: false });
    expect(await failure(harness.comments.getComment({ caller: reader.caller, scope, commentId: comment!.id, format: 0 }))).toMatchObject({
      code: "not_found",
    });
    const own = (await post(commenter, { spaceId })).comment!;
    expect(await harness.comments.deleteComment({ caller: commenter.caller, scope, commentId: own.id })).toEqual({ deleted: true });
  });
});

describe("replies", () => {
  it("posts, lists oldest first, edits, reacts and deletes replies, counting them on the comment", async () => {
    const { spaceId } = await spaceWithGuide();
    const scope = { spaceId, changeRequestId: "" };
    const { comment } = await post(commenter, { spaceId });
    const commentId = comment!.id;
    const first = (await harness.comments.postCommentReply({ caller: other.caller, scope, commentId, markdown: "one", format: 0 })).reply!;
    const second = (await harness.comments.postCommentReply({ caller: commenter.caller, scope, commentId, markdown: "two", format: 0 })).reply!;
    await harness.comments.postCommentReply({ caller: other.caller, scope, commentId, markdown: "three", format: 0 });
    expect(first).toMatchObject({ commentId, spaceId, changeRequestId: "", postedBy: { id: other.userId }, body: { markdown: "one" } });
    expect(first.permissions).toEqual({ view: true, edit: true, reply: true, delete: true });

    const listed = await harness.comments.listCommentReplies({
      caller: reader.caller,
      scope,
      commentId,
      format: CommentFormat.COMMENT_FORMAT_MARKDOWN,
      page: undefined,
    });
    expect(listed.replies.map((reply) => reply.body!.markdown)).toEqual(["one", "two", "three"]);
    expect(listed.replies[0]!.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const withRepliers = (await harness.comments.getComment({ caller: reader.caller, scope, commentId, format: 0 })).comment!;
    expect(withRepliers.replies).toBe(3);
    expect(withRepliers.repliers.map((replier) => [replier.user!.id, replier.count])).toEqual([
      [other.userId, 2],
      [commenter.userId, 1],
    ]);

    const edited = await harness.comments.updateCommentReply(
      UpdateCommentReplyRequest.fromPartial({
        caller: commenter.caller,
        scope,
        commentId,
        replyId: second.id,
        markdown: "two, edited",
        updateMask: ["markdown"],
        addedReactions: ["❤️"],
        removedReactions: [],
        format: 0,
      }),
    );
    expect(edited.reply).toMatchObject({ body: { markdown: "two, edited" }, reactions: [{ emoji: "❤️", users: [{ user: { id: commenter.userId } }] }] });
    expect(edited.reply!.editedAt).toBeInstanceOf(Date);
    expect(
      await failure(
        harness.comments.updateCommentReply(
          UpdateCommentReplyRequest.fromPartial({
            caller: other.caller,
            scope,
            commentId,
            replyId: second.id,
            markdown: "mine now",
            updateMask: ["markdown"],
            addedReactions: [],
            removedReactions: [],
            format: 0,
          }),
        ),
      ),
    ).toMatchObject({ code: "permission_denied" });
    expect(
      await failure(
        harness.comments.updateCommentReply(
          UpdateCommentReplyRequest.fromPartial({
            caller: commenter.caller,
            scope,
            commentId,
            replyId: second.id,
            resolved: true,
            updateMask: ["resolved"],
            addedReactions: [],
            removedReactions: [],
            format: 0,
          }),
        ),
      ),
    ).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^resolved: /) });

    expect(
      await harness.comments
        .deleteCommentReply({ caller: commenter.caller, scope, commentId, replyId: first.id })
        .catch((error: { code: string }) => error.code),
    ).toBe("permission_denied");
    expect(await harness.comments.deleteCommentReply({ caller: other.caller, scope, commentId, replyId: first.id })).toEqual({ deleted: true });
    expect(await harness.comments.deleteCommentReply({ caller: other.caller, scope, commentId, replyId: first.id })).toEqual({ deleted: false });
    expect(await failure(harness.comments.getCommentReply({ caller: reader.caller, scope, commentId, replyId: first.id, format: 0 }))).toMatchObject({
      code: "not_found",
    });
    expect((await harness.comments.getComment({ caller: reader.caller, scope, commentId, format: 0 })).comment!.replies).toBe(2);
    expect(await failure(harness.comments.postCommentReply({ caller: reader.caller, scope, commentId, markdown: "me too", format: 0 }))).toMatchObject({
      code: "permission_denied",
    });
  });
});

describe("commenters", () => {
  it("lists the members who commented or replied, in order of their first post", async () => {
    const { spaceId } = await spaceWithGuide();
    const scope = { spaceId, changeRequestId: "" };
    const { comment } = await post(other, { spaceId });
    await harness.comments.postCommentReply({ caller: commenter.caller, scope, commentId: comment!.id, markdown: "reply", format: 0 });
    await post(other, { spaceId });
    await post(org.owner, { spaceId });
    const all = await harness.comments.listCommenters({ caller: reader.caller, scope, page: undefined });
    expect(all.members.map((member) => [member.user!.id, member.role])).toEqual([
      [other.userId, MemberRole.MEMBER_ROLE_COMMENT],
      [commenter.userId, MemberRole.MEMBER_ROLE_COMMENT],
      [org.owner.userId, MemberRole.MEMBER_ROLE_ADMIN],
    ]);
    expect(all.page).toEqual({ nextPageToken: "", totalCount: 3 });
    const first = await harness.comments.listCommenters({ caller: reader.caller, scope, page: { pageToken: "", pageSize: 2 } });
    expect(first.members.map((member) => member.user!.id)).toEqual([other.userId, commenter.userId]);
    const rest = await harness.comments.listCommenters({ caller: reader.caller, scope, page: { pageToken: first.page!.nextPageToken, pageSize: 2 } });
    expect(rest.members.map((member) => member.user!.id)).toEqual([org.owner.userId]);
    expect(rest.page!.nextPageToken).toBe("");
    // An edited token is refused before its values reach the SQL casts (a 500 before).
    for (const values of [`["yesterday","${other.userId}"]`, `["2024-01-01T00:00:00.000Z","not a uuid"]`, `[{"$gt":0},"${other.userId}"]`]) {
      const pageToken = Buffer.from(`{"s":"firstPostedAt,authorId:asc","v":${values}}`).toString("base64url");
      expect(await failure(harness.comments.listCommenters({ caller: reader.caller, scope, page: { pageToken, pageSize: 2 } }))).toMatchObject({
        code: "invalid_argument",
        message: "page: not a valid page token for this list",
      });
    }
  });
});
