import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/**
 * Which browser origins may call the API (CORS_ALLOWED_ORIGINS): none by default, `*` for any.
 * Tokens travel in the Authorization header, never in cookies, so no answer allows credentials:
 * a page of an allowed origin still needs a token of its own to do anything.
 */
export interface CorsPolicy {
  /** Exact origins (`https://app.example.com`) or `*`; empty: no CORS header on any answer. */
  allowedOrigins: readonly string[];
}

/** The methods of the API's operations (OPTIONS is the preflight itself). */
const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
/** What GitBook's client and Imprint's own headers need beyond the safelisted ones. */
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, Prefer, X-Request-Id, User-Agent";
/** Answer headers a page may read beyond the safelisted ones (rate limits, where a created object is, replays, downloads). */
const EXPOSED_HEADERS =
  "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, ETag, X-Request-Id, Idempotent-Replayed, Preference-Applied, Content-Disposition, WWW-Authenticate";
/** How long a browser reuses a preflight's answer: Chromium's ceiling (Firefox would take a day). */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * Answers browsers of allowed origins: every answer (errors included) carries
 * Access-Control-Allow-Origin and the readable headers, and a preflight (OPTIONS with
 * Access-Control-Request-Method) is answered here, 204, whatever the path. An origin not allowed
 * gets no CORS header at all (its preflight goes on to the routes' plain OPTIONS answer), so the
 * browser keeps the answer from the page. Mounted before everything that may answer.
 */
export function cors(policy: CorsPolicy): Middleware<GatewayState> {
  if (policy.allowedOrigins.length === 0) return (_ctx, next) => next() as Promise<void>;
  const anyOrigin = policy.allowedOrigins.includes("*");
  const allowed = new Set(policy.allowedOrigins);
  return async (ctx, next) => {
    // Caches must not hand one origin's answer (with or without the header) to another.
    if (!anyOrigin) ctx.vary("Origin");
    const origin = ctx.get("Origin");
    if (!origin || !(anyOrigin || allowed.has(origin))) {
      await next();
      return;
    }
    ctx.set("Access-Control-Allow-Origin", anyOrigin ? "*" : origin);
    if (ctx.method === "OPTIONS" && ctx.get("Access-Control-Request-Method")) {
      ctx.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
      ctx.set("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      ctx.set("Access-Control-Max-Age", String(PREFLIGHT_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    ctx.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    await next();
  };
}

/**
 * CORS_ALLOWED_ORIGINS as origins: comma-separated `scheme://host[:port]` (as browsers send them in
 * Origin) or `*`. Returns the problem with the first entry that is neither.
 */
export function parseAllowedOrigins(setting: string): { origins: string[] } | { problem: string } {
  const origins: string[] = [];
  for (const entry of setting
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")) {
    if (entry === "*") {
      origins.push(entry);
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    // An origin has no path, query or credentials: "https://app.example.com/" would never match a browser's Origin.
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.toLowerCase() || url.username || url.password) {
      return { problem: `${JSON.stringify(entry)} is not an origin (scheme://host[:port], without a path or a trailing slash) nor *` };
    }
    origins.push(url.origin);
  }
  return { origins };
}
