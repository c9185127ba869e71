import type { Logger } from "@imprint/runtime/core";
import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/**
 * One line per request, written after the response status is final. A failed request carries the
 * message its client read as `reason`; a 5xx also has the error's own line (error handler).
 */
export function accessLog(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info("request", {
        request_id: ctx.state.requestId,
        method: ctx.method,
        // The path only: query strings may carry share keys.
        path: ctx.path,
        status: ctx.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        user_id: ctx.state.principal?.caller.userId,
        reason: ctx.state.failure,
      });
    }
  };
}
