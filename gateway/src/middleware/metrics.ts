import { HttpRequestMetrics } from "@imprint/runtime/core";
import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/**
 * Counts and times every request (imprint_http_requests_total, imprint_http_request_duration_seconds)
 * under its route template (`/v1/orgs/:organizationId`; "rate_limited" for a 429 of the rate limit,
 * which answers before the router; "unmatched" when no route took it), once its status is final.
 * /metrics itself is answered before Koa and not counted.
 */
export function requestMetrics(server = "gateway"): Middleware<GatewayState> {
  const metrics = new HttpRequestMetrics(server);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      const name = route !== undefined ? String(route) : ctx.status === 429 ? "rate_limited" : "unmatched";
      metrics.observe(name, ctx.method, ctx.status, started);
    }
  };
}
