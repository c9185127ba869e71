import { status as GrpcStatus } from "@grpc/grpc-js";

/**
 * The closed set of failure codes every Imprint process speaks. A use case throws an
 * {@link AppError}; the gRPC layer maps the code once to a gRPC status (and carries the code itself
 * in the `imprint-error-code` trailer); the gateway maps it once to an HTTP status.
 */
export const ERROR_CODES = [
  "invalid_argument",
  "unauthenticated",
  "permission_denied",
  "not_found",
  "already_exists",
  "conflict",
  "failed_precondition",
  "payload_too_large",
  "unsupported_media_type",
  "method_not_allowed",
  "rate_limited",
  "deadline_exceeded",
  "unavailable",
  "upstream_failed",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** The one error type of the system. `message` is safe to show to API callers (except for `internal`). */
export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static invalidArgument(message: string): AppError {
    return new AppError("invalid_argument", message);
  }
  static notFound(what: string): AppError {
    return new AppError("not_found", `${what} not found`);
  }
  static permissionDenied(message: string): AppError {
    return new AppError("permission_denied", message);
  }
  static conflict(message: string): AppError {
    return new AppError("conflict", message);
  }
  static unauthenticated(message = "Missing or invalid access token"): AppError {
    return new AppError("unauthenticated", message);
  }
}

/** Code → gRPC status. Several codes share a status; the trailer keeps them apart. */
export const GRPC_STATUS_BY_CODE: Readonly<Record<ErrorCode, GrpcStatus>> = {
  invalid_argument: GrpcStatus.INVALID_ARGUMENT,
  unauthenticated: GrpcStatus.UNAUTHENTICATED,
  permission_denied: GrpcStatus.PERMISSION_DENIED,
  not_found: GrpcStatus.NOT_FOUND,
  already_exists: GrpcStatus.ALREADY_EXISTS,
  conflict: GrpcStatus.ABORTED,
  failed_precondition: GrpcStatus.FAILED_PRECONDITION,
  payload_too_large: GrpcStatus.INVALID_ARGUMENT,
  unsupported_media_type: GrpcStatus.INVALID_ARGUMENT,
  method_not_allowed: GrpcStatus.UNIMPLEMENTED,
  rate_limited: GrpcStatus.RESOURCE_EXHAUSTED,
  deadline_exceeded: GrpcStatus.DEADLINE_EXCEEDED,
  unavailable: GrpcStatus.UNAVAILABLE,
  // An integration's script (or its tunnel) failed; the trailer tells it from a server error.
  upstream_failed: GrpcStatus.INTERNAL,
  internal: GrpcStatus.INTERNAL,
};

/** Code → HTTP status, used by the gateway and nowhere else. */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  conflict: 409,
  failed_precondition: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  rate_limited: 429,
  deadline_exceeded: 504,
  unavailable: 503,
  upstream_failed: 502,
  internal: 500,
};

/** gRPC status → code, for failures that did not come with our trailer (transport errors, other servers). */
export function codeFromGrpcStatus(status: GrpcStatus): ErrorCode {
  switch (status) {
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.OUT_OF_RANGE:
      return "invalid_argument";
    case GrpcStatus.UNAUTHENTICATED:
      return "unauthenticated";
    case GrpcStatus.PERMISSION_DENIED:
      return "permission_denied";
    case GrpcStatus.NOT_FOUND:
      return "not_found";
    case GrpcStatus.ALREADY_EXISTS:
      return "already_exists";
    case GrpcStatus.ABORTED:
      return "conflict";
    case GrpcStatus.FAILED_PRECONDITION:
      return "failed_precondition";
    case GrpcStatus.UNIMPLEMENTED:
      return "method_not_allowed";
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return "rate_limited";
    case GrpcStatus.DEADLINE_EXCEEDED:
      return "deadline_exceeded";
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.CANCELLED:
      return "unavailable";
    default:
      return "internal";
  }
}

/** Message shown to callers for a code whose own message must not leak (5xx). */
export function publicMessage(error: AppError): string {
  switch (error.code) {
    case "internal":
      return "Internal error";
    case "unavailable":
      return "Service temporarily unavailable";
    case "deadline_exceeded":
      return "The request took too long";
    default:
      return error.message;
  }
}

/** Seconds a client is told to wait (`Retry-After`) before retrying a request answered 503. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATEs of a database that cannot be reached or cannot take work right now, all worth a retry:
 * class 08 (connection exception), 53 (insufficient resources: too many connections, disk full,
 * out of memory), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now.
 */
const TRANSIENT_SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123])$/;

/** Socket failures of a connection to a peer (the database): the peer is down or unreachable. */
const TRANSIENT_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EAI_AGAIN",
  "ENOTCONN",
]);

/**
 * What node-postgres and its pool say, without a code, when a connection is lost or cannot be had:
 * "Connection terminated unexpectedly", "Connection terminated due to connection timeout",
 * "timeout exceeded when trying to connect" (pool acquire), "Client has encountered a connection
 * error and is not queryable", "Client was closed and is not queryable".
 */
const TRANSIENT_MESSAGE =
  /connection terminated|timeout exceeded when trying to connect|encountered a connection error|client was closed and is not queryable/i;

function isTransientFailure(error: unknown, depth: number): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET_CODES.has(code))) return true;
  if (typeof message === "string" && TRANSIENT_MESSAGE.test(message)) return true;
  // Node's happy-eyeballs connect rejects with an AggregateError of each address's failure.
  if (Array.isArray(errors) && errors.some((inner) => isTransientFailure(inner, depth + 1))) return true;
  return isTransientFailure(cause, depth + 1);
}

/**
 * The AppError for a failure that is not an AppError: `unavailable` when it says a dependency (the
 * database, through pg, the pool or MikroORM, which copies the driver's code onto its exceptions)
 * cannot be reached right now, so callers answer a retryable 503 instead of a 500; undefined for
 * anything else (a bug). The message names no host, port or query.
 */
export function infrastructureFailure(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  return isTransientFailure(error, 0)
    ? new AppError("unavailable", "Temporarily unavailable: a dependency (the database) cannot be reached", { cause: error })
    : undefined;
}
