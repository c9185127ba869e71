import { status as GrpcStatus } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AppError, codeFromGrpcStatus, ERROR_CODES, GRPC_STATUS_BY_CODE, HTTP_STATUS_BY_CODE, publicMessage } from "../src/errors.js";

describe("error code → gRPC status", () => {
  it.each([
    ["invalid_argument", GrpcStatus.INVALID_ARGUMENT],
    ["unauthenticated", GrpcStatus.UNAUTHENTICATED],
    ["permission_denied", GrpcStatus.PERMISSION_DENIED],
    ["not_found", GrpcStatus.NOT_FOUND],
    ["already_exists", GrpcStatus.ALREADY_EXISTS],
    ["conflict", GrpcStatus.ABORTED],
    ["failed_precondition", GrpcStatus.FAILED_PRECONDITION],
    ["payload_too_large", GrpcStatus.INVALID_ARGUMENT],
    ["unsupported_media_type", GrpcStatus.INVALID_ARGUMENT],
    ["method_not_allowed", GrpcStatus.UNIMPLEMENTED],
    ["rate_limited", GrpcStatus.RESOURCE_EXHAUSTED],
    ["deadline_exceeded", GrpcStatus.DEADLINE_EXCEEDED],
    ["unavailable", GrpcStatus.UNAVAILABLE],
    ["upstream_failed", GrpcStatus.INTERNAL],
    ["internal", GrpcStatus.INTERNAL],
  ] as const)("%s → %s", (code, status) => {
    expect(GRPC_STATUS_BY_CODE[code]).toBe(status);
  });

  it("covers every code", () => {
    expect(Object.keys(GRPC_STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe("error code → HTTP status", () => {
  it.each([
    ["invalid_argument", 400],
    ["unauthenticated", 401],
    ["permission_denied", 403],
    ["not_found", 404],
    ["already_exists", 409],
    ["conflict", 409],
    ["failed_precondition", 412],
    ["payload_too_large", 413],
    ["unsupported_media_type", 415],
    ["method_not_allowed", 405],
    ["rate_limited", 429],
    ["deadline_exceeded", 504],
    ["unavailable", 503],
    ["upstream_failed", 502],
    ["internal", 500],
  ] as const)("%s → %s", (code, status) => {
    expect(HTTP_STATUS_BY_CODE[code]).toBe(status);
  });

  it("covers every code", () => {
    expect(Object.keys(HTTP_STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe("gRPC status without a trailer → code", () => {
  it.each([
    [GrpcStatus.INVALID_ARGUMENT, "invalid_argument"],
    [GrpcStatus.OUT_OF_RANGE, "invalid_argument"],
    [GrpcStatus.UNAUTHENTICATED, "unauthenticated"],
    [GrpcStatus.PERMISSION_DENIED, "permission_denied"],
    [GrpcStatus.NOT_FOUND, "not_found"],
    [GrpcStatus.ALREADY_EXISTS, "already_exists"],
    [GrpcStatus.ABORTED, "conflict"],
    [GrpcStatus.FAILED_PRECONDITION, "failed_precondition"],
    [GrpcStatus.UNIMPLEMENTED, "method_not_allowed"],
    [GrpcStatus.RESOURCE_EXHAUSTED, "rate_limited"],
    [GrpcStatus.DEADLINE_EXCEEDED, "deadline_exceeded"],
    [GrpcStatus.UNAVAILABLE, "unavailable"],
    [GrpcStatus.CANCELLED, "unavailable"],
    [GrpcStatus.INTERNAL, "internal"],
    [GrpcStatus.UNKNOWN, "internal"],
    [GrpcStatus.DATA_LOSS, "internal"],
  ] as const)("%s → %s", (status, code) => {
    expect(codeFromGrpcStatus(status)).toBe(code);
  });
});

describe("public messages", () => {
  it("hide internals of 5xx errors and keep 4xx messages", () => {
    expect(publicMessage(new AppError("internal", "relation users does not exist"))).toBe("Internal error");
    expect(publicMessage(new AppError("unavailable", "connect ECONNREFUSED 127.0.0.1:4000"))).toBe("Service temporarily unavailable");
    expect(publicMessage(AppError.invalidArgument("title: too long"))).toBe("title: too long");
  });
});
