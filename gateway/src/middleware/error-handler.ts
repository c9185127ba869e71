import { AppError, HTTP_STATUS_BY_CODE, infrastructureFailure, publicMessage, RETRY_AFTER_SECONDS, type ErrorCode, type Logger } from "@imprint/runtime/core";
import type { Middleware } from "koa";
import type { GatewayContext, GatewayState } from "../context.js";

/** GitBook's error body: `{"error": {"code": <http status>, "message": "..."}}`. */
export interface ErrorBody {
  error: { code: number; message: string };
}

const CODE_BY_HTTP_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: "invalid_argument",
  401: "unauthenticated",
  403: "permission_denied",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  412: "failed_precondition",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

/**
 * Errors thrown by Koa itself or its helpers (http-errors) carry `status` and `expose`; client
 * errors among them keep their message, everything else becomes internal.
 */
function fromHttpError(error: unknown): AppError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, expose, message } = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== "number" || expose !== true || typeof message !== "string") return undefined;
  const code = CODE_BY_HTTP_STATUS[status];
  return code ? new AppError(code, message) : undefined;
}

export function sendError(ctx: GatewayContext, error: AppError): void {
  const status = HTTP_STATUS_BY_CODE[error.code];
  ctx.status = status;
  if (status === 401) ctx.set("WWW-Authenticate", 'Bearer realm="imprint"');
  // Retryable: an upstream (or its database) is down for now, or did not answer in time. A
  // deadline on a write leaves its outcome unknown, so it stays 504 (retry it with an
  // Idempotency-Key); both say when to try again.
  if (error.code === "unavailable" || error.code === "deadline_exceeded") ctx.set("Retry-After", String(RETRY_AFTER_SECONDS));
  const body: ErrorBody = { error: { code: status, message: publicMessage(error) } };
  ctx.body = body;
  // The access log's request line carries it: a 4xx is explained without a line of its own.
  ctx.state.failure = body.error.message;
}

/**
 * Turns every failure into the error body. AppErrors (ours, or rebuilt from an upstream's trailer)
 * map through HTTP_STATUS_BY_CODE, a dependency that cannot be reached is a 503; anything else is a bug: logged with the request id, answered
 * with a bare 500.
 */
export function errorHandler(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const appError = infrastructureFailure(error) ?? fromHttpError(error);
      if (appError && appError.code !== "internal") {
        if (HTTP_STATUS_BY_CODE[appError.code] >= 500) {
          logger.warn("upstream failure", {
            request_id: ctx.state.requestId,
            code: appError.code,
            err: appError.cause ?? appError,
            // The one setting an operator can turn when upstreams are merely slow.
            ...(appError.code === "deadline_exceeded" ? { hint: "each upstream call is bounded by UPSTREAM_TIMEOUT_MS" } : {}),
          });
        }
        sendError(ctx, appError);
        return;
      }
      logger.error("unhandled error", { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, err: error });
      sendError(ctx, new AppError("internal", "Internal error"));
    }
  };
}
