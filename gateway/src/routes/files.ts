import type { Router } from "@koa/router";
import { z } from "zod";
import type { GatewayState } from "../context.js";
import { parseInput, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

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
const downloadQuery = z.object({
  version: z.string().min(1).max(64),
  expires: queryParam.integer(0, 99_999_999_999),
  signature: z.string().min(1).max(128),
});

const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|application\/pdf|text\/plain|video\/[\w.+-]+|audio\/[\w.+-]+)(;|$)/i;

function contentDisposition(name: string, contentType: string): string {
  const kind = INLINE_TYPES.test(contentType) ? "inline" : "attachment";
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function mountFileRoutes(router: Router<GatewayState>, { upstreams }: Pick<RouteDeps, "upstreams">): void {
  router.register("/v1/files/:fileId/download", ["GET"], async (ctx) => {
    const params = parseInput(downloadParams, ctx.params, "path");
    const query = parseInput(downloadQuery, ctx.query, "query");
    const file = await upstreams.content.revisions.readFileContent({
      fileId: params.fileId,
      version: query.version,
      expires: String(query.expires),
      signature: query.signature,
    });
    ctx.status = 200;
    ctx.type = file.contentType;
    ctx.set("Content-Disposition", contentDisposition(file.name, file.contentType));
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Content-Security-Policy", "sandbox; default-src 'none'");
    // The URL is a capability that expires: caches may keep the bytes until then, privately.
    ctx.set("Cache-Control", `private, max-age=${Math.max(0, query.expires - Math.floor(Date.now() / 1000))}`);
    ctx.body = Buffer.from(file.content);
  });
}
