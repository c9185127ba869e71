import type { EntityManager } from "@mikro-orm/postgresql";
import { DocumentFormat, type PageSummary } from "@imprint/proto/content/v1/revisions";
import { AppError, recordEvent } from "@imprint/runtime";
import { Comment, NODE_ID_MAX, validateMarkdown, type PageSnapshot } from "../domain/comment.js";
import { characterCount } from "../domain/text.js";
import { commentCreated, spaceEventPayload } from "../events.js";
import { callerMessage, type CallerInput } from "./shared/access.js";
import { commentViews, type BodyFormat, type CommentView } from "./shared/comment-views.js";
import type { UseCaseDeps } from "../deps.js";
import { findDocumentNode, nodePreview } from "./shared/document-nodes.js";
import { loadUsers } from "./shared/users.js";
import { contentRefOf, resolveScope, type CommentScope, type CommentScopeInput } from "./shared/scope.js";

export interface PostCommentInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  /** "" for the content as a whole. */
  pageId: string;
  /** "" for the whole page. */
  nodeId: string;
  markdown: string;
  format: BodyFormat;
}

interface Target {
  revisionId: string | null;
  page: PageSnapshot | null;
  nodePreview: string | null;
}

/** The page (and node) the comment targets, read from the scope's content, with the revision read. */
async function readTarget(deps: UseCaseDeps, scope: CommentScope, pageId: string, nodeId: string): Promise<Target> {
  if (!pageId) {
    if (!scope.changeRequest) return { revisionId: scope.space.revisionId || null, page: null, nodePreview: null };
    const { branches } = await deps.content.branches.batchGetBranches({
      caller: callerMessage(scope.caller),
      spaceId: scope.space.spaceId,
      changeRequestIds: [scope.changeRequest.id],
    });
    return { revisionId: branches[0]?.headRevisionId || null, page: null, nodePreview: null };
  }
  const answer = await deps.content.revisions
    .getPage({
      caller: callerMessage(scope.caller),
      ref: contentRefOf(scope),
      options: { metadata: false, computed: false },
      pageId,
      pageOptions: { format: nodeId ? DocumentFormat.DOCUMENT_FORMAT_DOCUMENT : DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false },
    })
    .catch((error: unknown) => {
      if (error instanceof AppError && error.code === "not_found") throw AppError.invalidArgument("page: no page with this id in this content");
      throw error;
    });
  const page = answer.page!;
  const snapshot: PageSnapshot = {
    title: page.title,
    emoji: page.emoji,
    icon: page.icon,
    path: page.path,
    createdAt: page.createdAt?.toISOString() ?? null,
    updatedAt: page.updatedAt?.toISOString() ?? null,
  };
  if (!nodeId) return { revisionId: answer.revisionId, page: snapshot, nodePreview: null };
  const node = page.documentJson ? findDocumentNode(JSON.parse(page.documentJson), nodeId) : undefined;
  if (!node) throw AppError.invalidArgument(`node: no node "${nodeId}" in this page's document`);
  return { revisionId: answer.revisionId, page: snapshot, nodePreview: nodePreview(node) };
}

/**
 * Posts a comment on the scope's content, a page of it, or a node of a page's document. The page
 * is kept as it is now (title, path...) for when it is gone later; a node keeps a preview of its text.
 */
export async function postComment(em: EntityManager, input: PostCommentInput, deps: UseCaseDeps): Promise<CommentView> {
  const markdown = validateMarkdown(input.markdown);
  if (input.nodeId && !input.pageId) throw AppError.invalidArgument("node: needs a page");
  if (characterCount(input.nodeId) > NODE_ID_MAX) throw AppError.invalidArgument(`node: must be at most ${NODE_ID_MAX} characters`);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "comment");
  // Everything the answer needs from other services is read before the commit: once the comment
  // is saved, nothing may fail (a retry would post it twice).
  const [target, users] = await Promise.all([readTarget(deps, scope, input.pageId, input.nodeId), loadUsers(deps, [scope.caller.userId])]);
  const comment = await deps.unitOfWork.run(em, async (tx) => {
    const comment = tx.create(Comment, {
      spaceId: scope.space.spaceId,
      changeRequestId: scope.changeRequest?.id ?? null,
      organizationId: scope.space.organizationId,
      pageId: input.pageId || null,
      nodeId: input.nodeId || null,
      nodePreview: target.nodePreview,
      revisionId: target.revisionId,
      page: target.page,
      authorId: scope.caller.userId,
      markdown,
      postedAt: deps.clock(),
      editedAt: null,
      resolvedAt: null,
      resolvedBy: null,
      repliesCount: 0,
    });
    recordEvent(tx, commentCreated, {
      organizationId: scope.space.organizationId,
      actor: scope.caller,
      payload: await spaceEventPayload(tx, scope.space.spaceId, { commentId: comment.id, changeRequestId: comment.changeRequestId, pageId: comment.pageId }),
    });
    return comment;
  });
  const pages = new Map<string, PageSummary>();
  if (comment.pageId && target.page) {
    const { title, emoji, icon, path, createdAt, updatedAt } = target.page;
    const date = (iso: string | null) => (iso ? new Date(iso) : undefined);
    pages.set(comment.pageId, { id: comment.pageId, title, emoji, icon, path, createdAt: date(createdAt), updatedAt: date(updatedAt) });
  }
  const [view] = await commentViews(em, deps, scope, [comment], input.format, { pages, users });
  return view!;
}
