import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./services/runtime/src/testing/longest-first.js";
import { patient } from "./services/runtime/src/testing/time.js";

// One run for every workspace: the global setup starts one real PostgreSQL; each test file gets its
// own nats-server on first use (services/runtime/src/testing/nats.ts).
export default defineConfig({
  test: {
    include: ["{services,gateway,bench}/**/test/**/*.test.ts", "proto/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: ["services/runtime/src/testing/global-setup.ts"],
    setupFiles: ["services/runtime/src/testing/file-setup.ts"],
    testTimeout: patient(30_000),
    hookTimeout: patient(60_000),
    pool: "forks",
    // The workspaces' built code (what tests reach through package names) loads as plain Node
    // modules instead of through vite's transform and module runner: a stack-starting file
    // imports thousands of them, and every file imports them again in its own process.
    server: { deps: { external: [/\/(services\/[^/]+|gateway|proto)\/dist\//] } },
    // Three files at a time on 2 cores: much of the suite waits on the wall clock (the chaos files'
    // kills and pauses alone take over four minutes, mostly waiting), so a third file fills the
    // gaps and keeps `npm test` within CI's 20 minutes.
    maxWorkers: 3,
    // The longest files first, by their measured durations (.ci/test-durations.json), the heavy
    // ones spaced apart: a fresh clone has no record of the last run, and vitest would start the
    // short chaos file last.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
