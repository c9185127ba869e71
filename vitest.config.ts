import { defineConfig } from "vitest/config";

// One run for every workspace: the global setup starts one real PostgreSQL and one nats-server.
export default defineConfig({
  test: {
    include: ["{services,gateway,bench}/**/test/**/*.test.ts", "proto/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: ["services/runtime/src/testing/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
