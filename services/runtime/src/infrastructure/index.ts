export * from "./ports.js";
export * from "./postgres.js";
export * from "./nats.js";
