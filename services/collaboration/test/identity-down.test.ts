import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpdateChangeRequestRequest } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentFormat, UpdateCommentRequest, UpdateCommentReplyRequest } from "@imprint/proto/collaboration/v1/comments";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import {
  createChangeRequest,
  createOrganization,
  createPage,
  createSpace,
  failure,
  startServices,
  type TestOrganization,
  type TestServices,
} from "@imprint/runtime/testing";
import { loadCollaborationConfig } from "../src/config.js";
import { startCollaborationService } from "../src/service.js";

/**
 * A write is answered with its result or not applied: with identity unreachable (content still
 * answering, its memberships cached), every write that names users in its answer fails before it
 * commits, so a client's retry cannot save it twice.
 */

let services: TestServices;
let org: TestOrganization;
let spaceId: string;
let changeRequestId: string;
let commentId: string;
let replyId: string;

const scope = () => ({ spaceId, changeRequestId: "" });
const format = CommentFormat.COMMENT_FORMAT_UNSPECIFIED;

/** Rows of collaboration's own tables, read past its API: what a failed write must leave as it was. */
async function saved(): Promise<unknown> {
  const connection = services.service("collaboration").orm.em.fork().getConnection();
  return {
    changeRequests: await connection.execute(`select id, subject, status, updated_at from change_requests order by id`),
    comments: await connection.execute(`select id, markdown, resolved_at, replies_count from comments order by id`),
    replies: await connection.execute(`select id, markdown from comment_replies order by id`),
    reactions: await connection.execute(`select target_id, emoji, user_id from reactions order by target_id, emoji`),
  };
}

beforeAll(async () => {
  services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    // Content keeps the roles it read for the whole test: the writes below reach collaboration's own code.
    { name: "content", config: loadContentConfig, start: startContentService, env: { MEMBERSHIP_CACHE_TTL_MS: "600000" } },
    { name: "collaboration", config: loadCollaborationConfig, start: startCollaborationService },
  ]);
  const { clients } = services;
  org = await createOrganization(clients);
  const space = await createSpace(clients, org);
  spaceId = space.id;
  await createPage(clients, org.owner.caller, { spaceId }, { title: "Guide", markdown: "# Guide\n\nRead me.\n" });
  changeRequestId = (await createChangeRequest(clients, org.owner.caller, spaceId)).id;
  const { comment } = await clients.comments.postComment({ caller: org.owner.caller, scope: scope(), pageId: "", nodeId: "", markdown: "First", format });
  commentId = comment!.id;
  const { reply } = await clients.comments.postCommentReply({ caller: org.owner.caller, scope: scope(), commentId, markdown: "Reply", format });
  replyId = reply!.id;
  // Content has the owner's role now; identity goes away.
  await clients.spaces.getSpace({ caller: org.owner.caller, spaceId, shareKey: "" });
  await services.stopTarget("identity");
}, 120_000);
afterAll(() => services?.stop());

describe("with identity unreachable", () => {
  const writes: [string, () => Promise<unknown>][] = [
    [
      "postComment",
      () => services.clients.comments.postComment({ caller: org.owner.caller, scope: scope(), pageId: "", nodeId: "", markdown: "Again", format }),
    ],
    ["postCommentReply", () => services.clients.comments.postCommentReply({ caller: org.owner.caller, scope: scope(), commentId, markdown: "Again", format })],
    [
      "updateComment",
      () =>
        services.clients.comments.updateComment(
          UpdateCommentRequest.fromPartial({
            caller: org.owner.caller,
            scope: scope(),
            commentId,
            markdown: "Changed",
            resolved: true,
            updateMask: ["markdown", "resolved"],
            addedReactions: ["👍"],
            removedReactions: [],
            format,
          }),
        ),
    ],
    [
      "updateCommentReply",
      () =>
        services.clients.comments.updateCommentReply(
          UpdateCommentReplyRequest.fromPartial({
            caller: org.owner.caller,
            scope: scope(),
            commentId,
            replyId,
            markdown: "Changed",
            updateMask: ["markdown"],
            addedReactions: ["👍"],
            removedReactions: [],
            format,
          }),
        ),
    ],
    [
      "createChangeRequest",
      () => services.clients.changeRequests.createChangeRequest({ caller: org.owner.caller, spaceId, subject: "Another", agentTaskId: "" }),
    ],
    [
      "updateChangeRequest",
      () =>
        services.clients.changeRequests.updateChangeRequest(
          UpdateChangeRequestRequest.fromPartial({
            caller: org.owner.caller,
            spaceId,
            changeRequestId,
            subject: "Renamed",
            updateMask: ["subject"],
          }),
        ),
    ],
    ["mergeChangeRequest", () => services.clients.changeRequests.mergeChangeRequest({ caller: org.owner.caller, spaceId, changeRequestId })],
    ["updateChangeRequestFromMain", () => services.clients.changeRequests.updateChangeRequestFromMain({ caller: org.owner.caller, spaceId, changeRequestId })],
  ];

  it.each(writes)("%s answers unavailable and saves nothing", async (_name, write) => {
    const before = await saved();
    expect(await failure(write())).toMatchObject({ code: "unavailable" });
    expect(await saved()).toEqual(before);
  });

  it("updateChangeRequestContent answers unavailable before content applies anything", async () => {
    const { branches } = await services.clients.branches.batchGetBranches({ caller: org.owner.caller, spaceId, changeRequestIds: [changeRequestId] });
    const before = await saved();
    const write = services.clients.changeRequests.updateChangeRequestContent({ caller: org.owner.caller, spaceId, changeRequestId, changes: [] });
    expect(await failure(write)).toMatchObject({ code: "unavailable" });
    expect(await saved()).toEqual(before);
    const after = await services.clients.branches.batchGetBranches({ caller: org.owner.caller, spaceId, changeRequestIds: [changeRequestId] });
    expect(after.branches[0]?.headRevisionId).toBe(branches[0]?.headRevisionId);
  });
});
