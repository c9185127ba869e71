import type { EntityManager } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { CommentReply } from "../domain/comment.js";
import type { CallerInput } from "./shared/access.js";
import { replyViews, type BodyFormat, type ReplyView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { findComment, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface ListCommentRepliesInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  format: BodyFormat;
  page: PageRequestLike | undefined;
}

/** One page of a comment's replies, oldest first (a thread reads top down). */
export async function listCommentReplies(em: EntityManager, input: ListCommentRepliesInput, deps: UseCaseDeps): Promise<Page<ReplyView>> {
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  const comment = await findComment(em, scope, input.commentId);
  const page = await findPage(
    em,
    CommentReply,
    { commentId: comment.id },
    { fields: ["postedAt", "id"], direction: "asc", dateFields: ["postedAt"] },
    input.page,
  );
  return { ...page, items: await replyViews(em, deps, scope, page.items, input.format) };
}
