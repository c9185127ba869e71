import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type Page, type PageRequestLike, type SortDirection } from "@imprint/runtime";
import { Comment } from "../domain/comment.js";
import { isId, type CallerInput } from "./shared/access.js";
import { commentViews, type BodyFormat, type CommentView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { resolveScope, scopeFilter, type CommentScopeInput } from "./shared/scope.js";

export interface ListCommentsInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  /** Defaults to newest first. */
  order: SortDirection | undefined;
  /** Undefined for all. */
  status: "open" | "resolved" | undefined;
  /** "" for any page. */
  targetPageId: string;
  /** Empty for anyone. */
  authorUserIds: readonly string[];
  format: BodyFormat;
  page: PageRequestLike | undefined;
}

const MAX_AUTHORS = 1000;

/** One page of the scope's comments by posting time, on the (scope, filter, posted_at, id) indexes. */
export async function listComments(em: EntityManager, input: ListCommentsInput, deps: UseCaseDeps): Promise<Page<CommentView>> {
  if (input.authorUserIds.length > MAX_AUTHORS) throw AppError.invalidArgument(`authors: must name at most ${MAX_AUTHORS} users`);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  const conditions: FilterQuery<Comment>[] = [scopeFilter(scope)];
  if (input.status === "open") conditions.push({ resolvedAt: null });
  if (input.status === "resolved") conditions.push({ resolvedAt: { $ne: null } });
  if (input.targetPageId) conditions.push({ pageId: input.targetPageId });
  // Ids that are not user ids match nobody.
  if (input.authorUserIds.length > 0) conditions.push({ authorId: { $in: input.authorUserIds.filter((id) => isId(id)) } });
  const page = await findPage(
    em,
    Comment,
    { $and: conditions },
    { fields: ["postedAt", "id"], direction: input.order ?? "desc", dateFields: ["postedAt"] },
    input.page,
  );
  return { ...page, items: await commentViews(em, deps, scope, page.items, input.format) };
}
