import type { IncomingMessage, ServerResponse } from "node:http";
import { clientAddress, type RateLimiter, type TrustedProxies } from "@imprint/runtime/core";
import { renderStatus } from "./views/render.js";
import { acceptedLanguage, readerWords } from "./views/words.js";

/** Probes are never limited: an orchestrator asking often must not take a replica out. */
const UNLIMITED_PATHS = new Set(["/healthz", "/readyz"]);

/**
 * The reader's limit per client IP, before anything else answers (kept answers are replayed
 * before Koa): every answer carries GitBook's X-RateLimit-* headers, and a request beyond the
 * limit is answered 429 with Retry-After here. True when the request goes on.
 */
export function readerRateLimit(options: {
  limiter: RateLimiter;
  limitPerIp: number;
  trustedProxies: TrustedProxies;
  assetBase: string;
}): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { limiter, limitPerIp, trustedProxies } = options;
  return (request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    if (UNLIMITED_PATHS.has(path)) return true;
    const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
    const decision = limiter.take(`ip:${address}`, limitPerIp);
    response.setHeader("X-RateLimit-Limit", String(decision.limit));
    response.setHeader("X-RateLimit-Remaining", String(decision.remaining));
    response.setHeader("X-RateLimit-Reset", String(Math.ceil(decision.resetAtMs / 1000)));
    if (decision.allowed) return true;
    // No site is read before the limit: the visitor's own language.
    const language = acceptedLanguage(request.headers["accept-language"]);
    const { tooManyRequests } = readerWords(language);
    const body = renderStatus({ status: 429, ...tooManyRequests, assetBase: options.assetBase, language });
    response.writeHead(429, {
      "Retry-After": String(Math.max(1, Math.ceil(decision.resetInMs / 1000))),
      "Cache-Control": "no-store",
      Vary: "Accept-Language",
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
    });
    response.end(request.method === "HEAD" ? undefined : body);
    return false;
  };
}
