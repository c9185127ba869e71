import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "./shared/access.js";
import { replyViews, type BodyFormat, type ReplyView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { findComment, findReply, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface GetCommentReplyInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  replyId: string;
  format: BodyFormat;
}

export async function getCommentReply(em: EntityManager, input: GetCommentReplyInput, deps: UseCaseDeps): Promise<ReplyView> {
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  const reply = await findReply(em, await findComment(em, scope, input.commentId), input.replyId);
  const [view] = await replyViews(em, deps, scope, [reply], input.format);
  return view!;
}
