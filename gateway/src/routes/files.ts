import { z } from "zod";
import { downloadHeaders } from "@imprint/runtime/core";
import type { GatewayContext } from "../context.js";
import { parseInput, queryParam } from "../validation.js";
import type { DirectRoute, RouteDeps } from "./deps.js";

/**
 * `GET /v1/files/{fileId}/download?version=…&expires=…&signature=…`: the signed URL every file's
 * `downloadURL` points to. No bearer token: the signature (checked by the content service) is the
 * credential, so the URL works in an <img> tag. Not part of GitBook's API, which serves files from
 * its CDN.
 *
 * The bytes are user uploads served from the API's origin, so the answer is sandboxed (CSP
 * `sandbox`, `nosniff`) and only inert types are shown inline; anything else downloads.
 */
const downloadParams = z.object({ fileId: z.string().min(1).max(64) });

/** The query every signed download URL carries (files and exports). */
export const signedQueryShape = {
  expires: queryParam.integer(0, 99_999_999_999),
  signature: z.string().min(1).max(128),
};
const downloadQuery = z.object({ version: z.string().min(1).max(64), ...signedQueryShape });

export interface SignedDownload {
  content: Uint8Array;
  contentType: string;
  name: string;
}

/**
 * Answers the bytes behind a signed URL: their type, a file name (ASCII fallback and UTF-8),
 * sandboxed and never sniffed, cacheable privately until the URL expires.
 */
export function sendSignedDownload(ctx: GatewayContext, download: SignedDownload, options: { expires: number; disposition?: "inline" | "attachment" }): void {
  ctx.status = 200;
  ctx.type = download.contentType;
  ctx.set(downloadHeaders(download.name, download.contentType, options.disposition));
  // The URL is a capability that expires: caches may keep the bytes until then, privately.
  ctx.set("Cache-Control", `private, max-age=${Math.max(0, options.expires - Math.floor(Date.now() / 1000))}`);
  ctx.body = Buffer.from(download.content);
}

export function fileDownloadRoute({ upstreams }: Pick<RouteDeps, "upstreams">): DirectRoute {
  return {
    method: "GET",
    path: "/v1/files/:fileId/download",
    handle: async (ctx) => {
      const params = parseInput(downloadParams, ctx.params, "path");
      const query = parseInput(downloadQuery, ctx.query, "query");
      const file = await upstreams.content.revisions.readFileContent({
        fileId: params.fileId,
        version: query.version,
        expires: String(query.expires),
        signature: query.signature,
      });
      sendSignedDownload(ctx, file, { expires: query.expires });
    },
  };
}
