import { AppError } from "@imprint/runtime/core";
import type { RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

/**
 * Runs when no route handled the request: 405 with `Allow` when the path exists under other
 * methods, 204 with `Allow` for OPTIONS, else 404. Mounted right after the router's routes.
 */
export function routeFallback(): Middleware<GatewayState> {
  return (ctx) => {
    const matched = (ctx as unknown as RouterContext<GatewayState>).matched ?? [];
    const allowed = new Set<string>();
    for (const layer of matched) for (const method of layer.methods) allowed.add(method);
    if (allowed.size === 0) throw AppError.notFound(`Route ${ctx.method} ${ctx.path}`);
    const allow = [...allowed].join(", ");
    ctx.set("Allow", allow);
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      return;
    }
    throw new AppError("method_not_allowed", `Method ${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`);
  };
}
