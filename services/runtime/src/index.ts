export * from "./errors.js";
export * from "./logger.js";
export * from "./config.js";
export * from "./pagination.js";
export * from "./grpc/server.js";
export * from "./grpc/client.js";
export * from "./db/orm.js";
export * from "./events/entities.js";
