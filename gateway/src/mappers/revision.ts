import type { ChangeRequest } from "@imprint/proto/collaboration/v1/change_requests";
import type { ReusableContent, Revision } from "@imprint/proto/content/v1/revisions";
import { toRestChangeRequest } from "./change-request.js";
import { toRestFile } from "./file.js";
import { toRestPage } from "./page.js";
import type { PublicUrls } from "./urls.js";

/** GitBook's `RevisionReusableContent`: `document` is its body's id (getDocumentById), absent when empty. */
export function toRestReusableContent(item: ReusableContent): Record<string, unknown> {
  return {
    id: item.id,
    title: item.title,
    ...(item.documentId ? { document: item.documentId } : {}),
    ...(item.git ? { git: { oid: item.git.oid, path: item.git.path } } : {}),
  };
}

/**
 * GitBook's `Revision`, of its type (`edits` by default, `merge` with the change request it merged
 * as `mergedFrom`, `update` for a change request brought up to date).
 */
export function toRestRevision(revision: Revision, urls: PublicUrls, mergedFrom?: ChangeRequest): Record<string, unknown> {
  const context = { urls, organizationId: revision.organizationId, spaceId: revision.spaceId };
  return {
    object: "revision",
    id: revision.id,
    parents: revision.parents,
    pages: revision.pages.map((page) => toRestPage(page, context)),
    files: revision.files.map(toRestFile),
    reusableContents: revision.reusableContents.map(toRestReusableContent),
    tags: [],
    variables: revision.variables,
    createdAt: (revision.createdAt ?? new Date(0)).toISOString(),
    ...(revision.git
      ? {
          git: {
            oid: revision.git.oid,
            message: revision.git.message,
            createdByGitBook: revision.git.createdByService,
            ...(revision.git.url ? { url: revision.git.url } : {}),
            ...(revision.git.ref ? { ref: revision.git.ref } : {}),
          },
        }
      : {}),
    type: revision.type || "edits",
    ...(mergedFrom ? { mergedFrom: toRestChangeRequest(mergedFrom, urls) } : {}),
    urls: {
      app: `${urls.app}/o/${encodeURIComponent(revision.organizationId)}/s/${encodeURIComponent(revision.spaceId)}/~/revisions/${encodeURIComponent(revision.id)}/`,
    },
  };
}
