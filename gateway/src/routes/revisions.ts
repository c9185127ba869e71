import { z } from "zod";
import { toRestContentChange } from "../mappers/content-change.js";
import { toRestChangeRequest } from "../mappers/change-request.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { changeRequestChangesQuery, DEFAULT_CHANGES_LIMIT } from "./change-request-changes.js";
import { flagsQuery, mergedChangeRequest, revisionContentPrefix } from "./content.js";
import type { RouteDeps } from "./deps.js";

/**
 * The reads of a space's history that have no counterpart under `/content` (those are served for
 * revisions by contentRoutes): what a revision changed, a page's or a reusable content's body as
 * a document, and a document by its id. Revisions are immutable, so each read is of a fixed state.
 */

const revisionParams = z.object(revisionContentPrefix.params);
const pageParams = z.object({ ...revisionContentPrefix.params, pageId: pathId() });
const reusableParams = z.object({ ...revisionContentPrefix.params, reusableContentId: pathId() });
const documentParams = z.object({ spaceId: pathId(), documentId: pathId() });

/** getRevisionSemanticChanges: getChangeRequestChanges' `limit` and `page`, and the read flags. */
const changesQuery = changeRequestChangesQuery.extend(flagsQuery.shape);

/**
 * Document reads: `evaluated` (true and deterministic-only evaluate the same: every expression
 * Imprint knows is deterministic); `dereferenced` is accepted, reusable contents are not inlined.
 */
const documentQuery = z.object({
  evaluated: z.enum(["true", "false", "deterministic-only"]).optional(),
  dereferenced: z.enum(["true", "false", "reusable-contents"]).optional(),
});
const evaluatedOf = (query: z.output<typeof documentQuery>) => query.evaluated !== undefined && query.evaluated !== "false";

/** getDocumentById: `schema` (current or next) is accepted; Imprint's documents have one schema. */
const documentByIdQuery = z.object({ schema: z.enum(["current", "next"]).optional() });

/** The document JSON the content service answers, sent as it is (GitBook's shape already): no parse, no encode. */
function documentAnswer(ctx: { type: string }, json: string) {
  ctx.type = "application/json";
  return ok(Buffer.from(json));
}

export function revisionRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const revisions = upstreams.content.revisions;
  return [
    // getRevisionSemanticChanges
    defineRoute({
      method: "GET",
      path: `${revisionContentPrefix.path}/changes`,
      params: revisionParams,
      query: changesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const ref = revisionContentPrefix.ref(params);
        const response = await revisions.listRevisionChanges({
          caller: principal.caller,
          ref,
          page: { pageToken: query.page === undefined ? "" : cursors.open(query.page), pageSize: query.limit ?? DEFAULT_CHANGES_LIMIT },
        });
        const mergedFrom = await mergedChangeRequest(upstreams, principal.caller, ref.spaceId, response.mergedChangeRequestId);
        const next = response.page?.nextPageToken ?? "";
        return ok({
          ...(mergedFrom ? { mergedFrom: toRestChangeRequest(mergedFrom, urls) } : {}),
          changes: response.changes.map(toRestContentChange),
          ...(response.remaining > 0 ? { more: response.remaining } : {}),
          ...(next ? { next: { page: cursors.seal(next) } } : {}),
        });
      },
    }),

    // getPageDocumentInRevisionById
    defineRoute({
      method: "GET",
      path: `${revisionContentPrefix.path}/page/:pageId/document`,
      params: pageParams,
      query: documentQuery,
      handler: async ({ params, query, principal, ctx }) => {
        const response = await revisions.getPageDocument({
          caller: principal.caller,
          ref: revisionContentPrefix.ref(params),
          pageId: params.pageId,
          evaluated: evaluatedOf(query),
        });
        return documentAnswer(ctx, response.documentJson);
      },
    }),

    // getReusableContentDocumentInRevisionById
    defineRoute({
      method: "GET",
      path: `${revisionContentPrefix.path}/reusable-contents/:reusableContentId/document`,
      params: reusableParams,
      query: documentQuery,
      handler: async ({ params, query, principal, ctx }) => {
        const response = await revisions.getReusableContent({
          caller: principal.caller,
          ref: revisionContentPrefix.ref(params),
          options: { metadata: false, computed: true },
          reusableContentId: params.reusableContentId,
          withDocument: true,
          evaluated: evaluatedOf(query),
        });
        return documentAnswer(ctx, response.documentJson);
      },
    }),

    // getDocumentById
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/documents/:documentId",
      params: documentParams,
      query: documentByIdQuery,
      handler: async ({ params, principal, ctx }) => {
        const response = await revisions.getDocument({ caller: principal.caller, spaceId: params.spaceId, documentId: params.documentId });
        return documentAnswer(ctx, response.documentJson);
      },
    }),
  ];
}
