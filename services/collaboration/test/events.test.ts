import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeRequestStatus, UpdateChangeRequestRequest } from "@imprint/proto/collaboration/v1/change_requests";
import { UpdateCommentRequest } from "@imprint/proto/collaboration/v1/comments";
import { MemberRole } from "@imprint/proto/identity/v1";
import {
  eventually,
  createMember,
  createPage,
  createOrganization,
  createSpace,
  setPageMarkdown,
  type TestOrganization,
  type TestUser,
  readEvents,
  waitForEvents,
} from "@imprint/runtime/testing";
import { ChangeRequest, SpaceState } from "../src/domain/change-request.js";
import { Comment, CommentReply, Reaction } from "../src/domain/comment.js";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

let harness: CollaborationHarness;
let org: TestOrganization;
let editor: TestUser;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit", displayName: "Edith Editor" });
});
afterAll(() => harness?.stop());

const scopeOf = (spaceId: string, changeRequestId = "") => ({ spaceId, changeRequestId });
const createChangeRequest = (spaceId: string, subject = "Change") =>
  harness.changeRequests.createChangeRequest({ caller: editor.caller, spaceId, subject, agentTaskId: "" }).then((answer) => answer.changeRequest!);
const postComment = (spaceId: string, changeRequestId = "") =>
  harness.comments
    .postComment({ caller: editor.caller, scope: scopeOf(spaceId, changeRequestId), pageId: "", nodeId: "", markdown: "Note", format: 0 })
    .then((answer) => answer.comment!);

describe("collaboration events", () => {
  it("records every change with the space's counters, versioned in commit order", async () => {
    const space = await createSpace(harness, org);
    const since = new Date();
    const first = await createChangeRequest(space.id, "First");
    await createChangeRequest(space.id, "Second");
    await harness.changeRequests.updateChangeRequest(
      UpdateChangeRequestRequest.fromPartial({
        caller: editor.caller,
        spaceId: space.id,
        changeRequestId: first.id,
        status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT,
        updateMask: ["status"],
      }),
    );
    const comment = await postComment(space.id);
    await postComment(space.id, first.id);
    await harness.comments.updateComment(
      UpdateCommentRequest.fromPartial({
        caller: editor.caller,
        scope: scopeOf(space.id),
        commentId: comment.id,
        resolved: true,
        updateMask: ["resolved"],
        addedReactions: [],
        removedReactions: [],
        format: 0,
      }),
    );
    const { reply } = await harness.comments.postCommentReply({
      caller: editor.caller,
      scope: scopeOf(space.id),
      commentId: comment.id,
      markdown: "Done",
      format: 0,
    });
    await harness.comments.deleteCommentReply({ caller: editor.caller, scope: scopeOf(space.id), commentId: comment.id, replyId: reply!.id });

    const caused = [
      "change_request.created",
      "change_request.created",
      "change_request.updated",
      "comment.created",
      "comment.created",
      "comment.resolved",
      "comment_reply.created",
      "comment_reply.deleted",
    ];
    // What the editor did here, in commit order (other events of the space may come between).
    const events = (await waitForEvents("collaboration", { occurredSince: since, payload: { spaceId: space.id } }, { types: caused })).filter(
      (event) => event.actor?.userId === editor.userId,
    );
    expect(events.map((event) => event.type)).toEqual(caused);
    expect(events.map((event) => event.subject)).toContain("imprint.collaboration.v1.change_request.created");
    expect(events.every((event) => event.organizationId === org.organizationId && event.actor?.userId === editor.userId)).toBe(true);
    const counters = events.map((event) => event.payload.spaceCounters as Record<string, number>);
    // Versioned in commit order: each event's counters are newer than the one before.
    const versions = counters.map((entry) => entry.version);
    expect(versions).toEqual([...versions].sort((a, b) => a! - b!));
    expect(new Set(versions).size).toBe(versions.length);
    expect(counters[1]).toEqual({ changeRequests: 2, changeRequestsOpen: 2, changeRequestsDraft: 0, comments: 0, version: 2 });
    expect(counters[2]).toMatchObject({ changeRequests: 2, changeRequestsOpen: 1, changeRequestsDraft: 1 });
    // Only open comments on the space itself count, not those on change requests.
    expect(counters[3]).toMatchObject({ comments: 1 });
    expect(counters[4]).toMatchObject({ comments: 1 });
    expect(counters[5]).toMatchObject({ comments: 0 });
    expect(events[0]!.payload).toMatchObject({ spaceId: space.id, changeRequestId: first.id, number: 1, subject: "First" });
    expect(events[2]!.payload).toMatchObject({ changedFields: ["status"], changes: { status: { from: "open", to: "draft" } } });

    // Content keeps the space's counters from these events.
    const counted = await eventually(async () => {
      const { space: current } = await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: space.id, shareKey: "" });
      // The last event's counters (events apply in version order, so this is where they settle).
      return current!.changeRequests === 2 && current!.changeRequestsDraft === 1 && current!.comments === 0 ? current : undefined;
    }, 10_000);
    expect(counted).toMatchObject({ changeRequests: 2, changeRequestsOpen: 1, changeRequestsDraft: 1, comments: 0 });
    // A later change still reaches the space: the counters follow, not just settle once.
    await postComment(space.id);
    await eventually(
      async () => (await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: space.id, shareKey: "" })).space!.comments === 1 || undefined,
      10_000,
    );
  });

  it("records archiving and merging", async () => {
    const space = await createSpace(harness, org);
    const pageId = await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Page", markdown: "Text.\n" });
    const archived = await createChangeRequest(space.id);
    const merged = await createChangeRequest(space.id);
    const since = new Date();
    await harness.changeRequests.updateChangeRequest(
      UpdateChangeRequestRequest.fromPartial({
        caller: editor.caller,
        spaceId: space.id,
        changeRequestId: archived.id,
        status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_ARCHIVED,
        updateMask: ["status"],
      }),
    );
    await setPageMarkdown(harness, editor.caller, { spaceId: space.id, changeRequestId: merged.id }, pageId, "Better text.\n");
    const { revisionId } = await harness.changeRequests.mergeChangeRequest({ caller: org.owner.caller, spaceId: space.id, changeRequestId: merged.id });
    const caused = ["change_request.updated", "change_request.archived", "change_request.merged"];
    const events = await waitForEvents("collaboration", { occurredSince: since, payload: { spaceId: space.id } }, { types: caused });
    const ofType = (type: string) => events.filter((event) => event.type === type);
    expect(ofType("change_request.updated").find((event) => event.payload.changeRequestId === archived.id)?.payload).toMatchObject({
      changes: { status: { to: "archived" } },
    });
    expect(ofType("change_request.archived").map((event) => event.payload.changeRequestId)).toEqual([archived.id]);
    expect(ofType("change_request.merged").map((event) => event.payload.changeRequestId)).toEqual([merged.id]);
    expect(ofType("change_request.merged")[0]!.payload).toMatchObject({
      changeRequestId: merged.id,
      revisionId,
      spaceCounters: { changeRequests: 2, changeRequestsOpen: 0 },
    });
  });

  it("records a merge content made without this service (repairing a crash between the two)", async () => {
    const space = await createSpace(harness, org);
    const pageId = await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Page", markdown: "Text.\n" });
    const created = await createChangeRequest(space.id);
    await setPageMarkdown(harness, editor.caller, { spaceId: space.id, changeRequestId: created.id }, pageId, "Merged behind our back.\n");
    const merged = await harness.branches.mergeBranch({ caller: org.owner.caller, spaceId: space.id, changeRequestId: created.id });
    const recorded = await eventually(async () => {
      const { changeRequest } = await harness.changeRequests.getChangeRequest({ caller: editor.caller, spaceId: space.id, changeRequestId: created.id });
      return changeRequest!.status === ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED ? changeRequest : undefined;
    }, 10_000);
    expect(recorded.mergedRevisionId).toBe(merged.revisionId);
    const again = await harness.changeRequests.mergeChangeRequest({ caller: org.owner.caller, spaceId: space.id, changeRequestId: created.id });
    expect(again.revisionId).toBe(merged.revisionId);
    const events = await readEvents("collaboration", { occurredSince: new Date(0), payload: { spaceId: space.id } });
    expect(events.filter((event) => event.type === "change_request.merged")).toHaveLength(1);
  });

  it("follows a space to its new organization", async () => {
    const space = await createSpace(harness, org);
    const created = await createChangeRequest(space.id);
    const comment = await postComment(space.id);
    const target = await createOrganization(harness);
    await harness.identity.members.addMember({ organizationId: target.organizationId, email: org.owner.email, role: MemberRole.MEMBER_ROLE_ADMIN });
    await harness.spaces.transferSpace({ caller: org.owner.caller, spaceId: space.id, organizationId: target.organizationId, parent: undefined });
    await eventually(async () => {
      const { changeRequest } = await harness.changeRequests.getChangeRequest({ caller: org.owner.caller, spaceId: space.id, changeRequestId: created.id });
      return changeRequest!.organizationId === target.organizationId;
    }, 10_000);
    const { comment: moved } = await harness.comments.getComment({ caller: org.owner.caller, scope: scopeOf(space.id), commentId: comment.id, format: 0 });
    expect(moved!.organizationId).toBe(target.organizationId);
  });

  it("removes a purged space's change requests, comments, replies and reactions", async () => {
    const space = await createSpace(harness, org);
    const kept = await createSpace(harness, org);
    const created = await createChangeRequest(space.id);
    const comment = await postComment(space.id, created.id);
    await harness.comments.postCommentReply({
      caller: editor.caller,
      scope: scopeOf(space.id, created.id),
      commentId: comment.id,
      markdown: "Reply",
      format: 0,
    });
    await harness.comments.updateComment(
      UpdateCommentRequest.fromPartial({
        caller: editor.caller,
        scope: scopeOf(space.id, created.id),
        commentId: comment.id,
        addedReactions: ["👀"],
        removedReactions: [],
        format: 0,
      }),
    );
    await postComment(kept.id);
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: space.id });
    harness.contentClock.advanceDays(8);
    expect((await harness.spaces.purgeDeletedSpaces({})).spaceIds).toContain(space.id);

    const em = harness.collaboration.orm.em.fork();
    const remaining = async (spaceId: string) =>
      [
        await em.count(ChangeRequest, { spaceId }),
        await em.count(Comment, { spaceId }),
        await em.count(CommentReply, { spaceId }),
        await em.count(Reaction, { spaceId }),
        await em.count(SpaceState, { spaceId }),
      ].reduce((sum, count) => sum + count, 0);
    await eventually(async () => (await remaining(space.id)) === 0, 10_000);
    expect(await remaining(kept.id)).toBeGreaterThan(0);
  });
});
