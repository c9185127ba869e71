/**
 * The part of the runtime for processes without a database or NATS (the gateway, CLIs): errors,
 * logging, configuration, gRPC clients and servers, process lifecycle. Importing it never loads
 * MikroORM or the NATS client, which keeps such processes small.
 */
export * from "./errors.js";
export * from "./text.js";
export * from "./json.js";
export * from "./caller.js";
export * from "./update-mask.js";
export * from "./logger.js";
export * from "./config.js";
export * from "./grpc/server.js";
export * from "./grpc/client.js";
export * from "./grpc/upstreams.js";
export * from "./grpc/co-hosted.js";
export * from "./grpc/keyed-calls.js";
export * from "./access/identity-clients.js";
export * from "./telemetry/propagation.js";
export * from "./telemetry/lifecycle.js";
export * from "./process.js";
export * from "./memory-reducer.js";
export * from "./hosting.js";
export * from "./cache-budget.js";
export * from "./cached-loader.js";
export * from "./downloads.js";
export * from "./rate-limit/rate-limiter.js";
export * from "./rate-limit/client-address.js";
export * from "./request-body.js";
export * from "./metrics/index.js";
