import { AppError, clientAddress, type RateLimiter, type TrustedProxies } from "@imprint/runtime/core";
import type { Middleware } from "koa";
import { SESSION_COOKIE, type Principal, type TokenAuthenticator } from "../auth.js";
import type { OperationClass, RateLimits } from "../config.js";
import type { GatewayState } from "../context.js";

/** Probes are never limited: an orchestrator asking often must not take a replica out. */
const UNLIMITED_PATHS = new Set(["/healthz", "/readyz", "/healthz/upstreams"]);
/** Operations that make a service fetch, render or scan much: searches, PDFs, integration renders. */
const EXPENSIVE_ANY_METHOD = /\/(search|pdf|render)(\/|$)/;
/** Started by a write, running long: imports and exports (reading their state is a read). */
const EXPENSIVE_WRITE = /\/(import|imports|export|exports)(\/|$)/;
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The class a request counts against, by its route's path and method. */
export function operationClass(method: string, path: string): OperationClass {
  if (EXPENSIVE_ANY_METHOD.test(path)) return "expensive";
  if (READ_METHODS.has(method)) return "reads";
  return EXPENSIVE_WRITE.test(path) ? "expensive" : "writes";
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  limits: RateLimits;
  authenticator: TokenAuthenticator;
  trustedProxies: TrustedProxies;
}

/**
 * GitBook's rate limits: every answer (401 and 404 included) says the caller's budget in
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds), and a
 * request beyond it is 429 with Retry-After. A request with a valid token counts against the
 * token's budget of its class (reads, writes, expensive); anything else (no token, a token refused)
 * against its client IP's. Mounted inside the error handler, which shapes the 429.
 */
export function rateLimit(options: RateLimitOptions): Middleware<GatewayState> {
  const { limiter, limits, authenticator, trustedProxies } = options;
  return async (ctx, next) => {
    if (UNLIMITED_PATHS.has(ctx.path)) {
      await next();
      return;
    }
    const header = ctx.get("Authorization");
    const sessionCookie = ctx.cookies.get(SESSION_COOKIE);
    let principal: Principal | undefined;
    if (header || sessionCookie) {
      // One verification for the request: the route pipeline awaits this same answer (and answers its failure).
      ctx.state.authentication = authenticator.authenticateRequest(header || undefined, sessionCookie || undefined);
      principal = await ctx.state.authentication.catch(() => undefined);
    }
    const kind = operationClass(ctx.method, ctx.path);
    // A verified token is counted by its id (the authenticator already hashed the header to find it).
    const caller = principal
      ? `token:${principal.caller.tokenId ?? `user:${principal.caller.userId}`}`
      : `ip:${clientAddress(ctx.req.socket.remoteAddress, ctx.req.headers["x-forwarded-for"], trustedProxies)}`;
    const limit = (principal ? limits.token : limits.ip)[kind];
    const decision = limiter.take(`${caller}:${kind}`, limit);
    ctx.set("X-RateLimit-Limit", String(decision.limit));
    ctx.set("X-RateLimit-Remaining", String(decision.remaining));
    ctx.set("X-RateLimit-Reset", String(Math.ceil(decision.resetAtMs / 1000)));
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.resetInMs / 1000));
      ctx.set("Retry-After", String(retryAfter));
      throw new AppError(
        "rate_limited",
        `Rate limit exceeded: ${limit} ${kind} per ${limiter.windowMs / 1000} s ${principal ? "for this token" : "for this client address"}; retry after ${retryAfter} s`,
      );
    }
    await next();
  };
}
