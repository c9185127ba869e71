import { z } from "zod";
import { defineRoute, ok, type Route } from "../route.js";
import { parseInput, pathId, queryParam } from "../validation.js";
import { changeRequestContentPrefix, spaceContentPrefix } from "./content.js";
import type { DirectRoute, RouteDeps } from "./deps.js";
import { sendSignedDownload, signedQueryShape } from "./files.js";

/**
 * PDF exports: `getSpacePDF` renders a space's current content and `getChangeRequestPDF` a change
 * request's (or one page, with or without its sub-pages); both answer `{url}`, a signed download URL on this gateway that works
 * for an hour: `GET /v1/exports/{exportId}/download?expires=…&signature=…` (no bearer token, like
 * file downloads; not part of GitBook's API).
 */

/** Rendering up to 2,000 pages takes seconds, more than an ordinary read is given. */
export const EXPORT_TIMEOUT_MS = 120_000;

const spacePdfParams = z.object(spaceContentPrefix.params);
const pdfParams = z.object(changeRequestContentPrefix.params);
const pdfQuery = z.object({
  only: queryParam.boolean().optional(),
  page: queryParam.string(64).optional(),
});
const downloadParams = z.object({ exportId: pathId() });
const downloadQuery = z.object(signedQueryShape);

export function exportRoutes({ upstreams }: RouteDeps): Route[] {
  return [
    // getSpacePDF
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/pdf",
      params: spacePdfParams,
      query: pdfQuery,
      handler: async ({ params, query, principal }) => {
        const exported = await upstreams.content.exports.exportPdf(
          { caller: principal.caller, ref: spaceContentPrefix.ref(params), pageId: query.page ?? "", only: query.only ?? false },
          { timeoutMs: EXPORT_TIMEOUT_MS },
        );
        return ok({ url: exported.url });
      },
    }),

    // getChangeRequestPDF
    defineRoute({
      method: "GET",
      path: "/v1/spaces/:spaceId/change-requests/:changeRequestId/pdf",
      params: pdfParams,
      query: pdfQuery,
      handler: async ({ params, query, principal }) => {
        const exported = await upstreams.content.exports.exportPdf(
          { caller: principal.caller, ref: changeRequestContentPrefix.ref(params), pageId: query.page ?? "", only: query.only ?? false },
          { timeoutMs: EXPORT_TIMEOUT_MS },
        );
        return ok({ url: exported.url });
      },
    }),
  ];
}

/** The download of a signed export URL: the PDF as an attachment named after its content. */
export function exportDownloadRoute({ upstreams }: Pick<RouteDeps, "upstreams">): DirectRoute {
  return {
    method: "GET",
    path: "/v1/exports/:exportId/download",
    handle: async (ctx) => {
      const params = parseInput(downloadParams, ctx.params, "path");
      const query = parseInput(downloadQuery, ctx.query, "query");
      const exported = await upstreams.content.exports.readExportContent({
        exportId: params.exportId,
        expires: String(query.expires),
        signature: query.signature,
      });
      sendSignedDownload(ctx, exported, { expires: query.expires, disposition: "attachment" });
    },
  };
}
