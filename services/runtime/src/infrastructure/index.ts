export * from "./ports.js";
export * from "./postgres.js";
export * from "./nats.js";
export * from "./git-http-server.js";
export * from "./git-sync-layout.js";
export * from "./chromium.js";
