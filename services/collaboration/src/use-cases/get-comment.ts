import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "./shared/access.js";
import { commentViews, type BodyFormat, type CommentView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { findComment, resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface GetCommentInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  commentId: string;
  format: BodyFormat;
}

export async function getComment(em: EntityManager, input: GetCommentInput, deps: UseCaseDeps): Promise<CommentView> {
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  const comment = await findComment(em, scope, input.commentId);
  const [view] = await commentViews(em, deps, scope, [comment], input.format);
  return view!;
}
