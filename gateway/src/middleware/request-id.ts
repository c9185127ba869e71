import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import type { GatewayState } from "../context.js";

export const REQUEST_ID_HEADER = "X-Request-Id";

// A caller's id is reused only when it cannot corrupt a log line or a header.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when sane, else mints one; echoes it in the response. */
export function requestId(): Middleware<GatewayState> {
  return (ctx, next) => {
    const offered = ctx.get(REQUEST_ID_HEADER);
    const id = SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    return next();
  };
}
