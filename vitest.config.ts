import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer, SHARED_PROCESS_PROJECT } from "./services/runtime/src/testing/longest-first.js";
import { patient } from "./services/runtime/src/testing/time.js";

const TEST_FILES = ["{services,gateway,bench}/**/test/**/*.test.ts", "proto/test/**/*.test.ts"];
const NOT_TESTS = ["**/node_modules/**", "**/dist/**"];
/** One PostgreSQL for the run, whichever projects it has files of. */
const GLOBAL_SETUP = "services/runtime/src/testing/global-setup.ts";

/**
 * Test files that run one after another in reused worker processes (`isolate: false`), which load
 * the workspaces' modules once instead of once per file: the files that start nothing (no service,
 * stack, server, child process, database or nats-server) and change no process-wide state (about
 * three times faster), and the gateway's end-to-end files, each of which starts its stack in
 * beforeAll and stops it in afterAll (gateway/test/support/stack.ts). Every other file gets a
 * fresh process.
 */
const SHARED_PROCESS_FILES = [
  "bench/test/app-report.test.ts",
  "bench/test/content-report.test.ts",
  "bench/test/event-lag-report.test.ts",
  "bench/test/hosting-report.test.ts",
  "bench/test/reader-report.test.ts",
  "bench/test/report.test.ts",
  "gateway/test/api-doc.test.ts",
  "gateway/test/auth.test.ts",
  "gateway/test/config.test.ts",
  "gateway/test/*.e2e.test.ts",
  "gateway/test/contract.test.ts",
  "gateway/test/indexed-router.test.ts",
  "gateway/test/pagination.test.ts",
  "gateway/test/validation.test.ts",
  "services/app/test/bundle-size.test.ts",
  "services/app/test/editor-commands.test.ts",
  "services/app/test/editor-roundtrip.test.ts",
  "services/collaboration/test/event-catalogue.test.ts",
  "services/content/test/event-catalogue.test.ts",
  "services/content/test/exports-render.test.ts",
  "services/content/test/files-signed-url.test.ts",
  "services/content/test/git-layout.test.ts",
  "services/content/test/import-build-tree.test.ts",
  "services/content/test/import-extract.test.ts",
  "services/content/test/revisions-btree.test.ts",
  "services/content/test/revisions-evaluate.test.ts",
  "services/content/test/search-sections.test.ts",
  "services/content/test/tree-caches.test.ts",
  "services/content/test/tree-page-diff.test.ts",
  "services/document/test/*.test.ts",
  "services/identity/test/audit-rules.test.ts",
  "services/identity/test/event-catalogue.test.ts",
  "services/integration/test/event-catalogue.test.ts",
  "services/integration/test/platform-schemas.test.ts",
  "services/integration/test/platform.test.ts",
  "services/publishing/test/adaptive-schema.test.ts",
  "services/publishing/test/customization.test.ts",
  "services/publishing/test/event-catalogue.test.ts",
  "services/reader/test/bots.test.ts",
  "services/reader/test/edit-links.test.ts",
  "services/reader/test/feedback.test.ts",
  "services/reader/test/look.test.ts",
  "services/reader/test/openapi.test.ts",
  "services/reader/test/views.test.ts",
  "services/runtime/test/cache-budget.test.ts",
  "services/runtime/test/cached-loader.test.ts",
  "services/runtime/test/caller.test.ts",
  "services/runtime/test/errors.test.ts",
  "services/runtime/test/event-definitions.test.ts",
  "services/runtime/test/hosting.test.ts",
  "services/runtime/test/logger.test.ts",
  "services/runtime/test/memberships.test.ts",
  "services/runtime/test/organization-role.test.ts",
  "services/runtime/test/pagination.test.ts",
  "services/runtime/test/rate-limit.test.ts",
  "services/runtime/test/readme-check.test.ts",
];

// One run for every workspace: the global setup starts one real PostgreSQL; each test file gets its
// own nats-server on first use (services/runtime/src/testing/nats.ts).
export default defineConfig({
  test: {
    setupFiles: ["services/runtime/src/testing/file-setup.ts"],
    testTimeout: patient(30_000),
    hookTimeout: patient(60_000),
    pool: "forks",
    // Every test file is a fresh process (and many start more: services, launchers, scripts), each
    // compiling the same modules again: Node's compile cache keeps V8's compiled code on disk for
    // the next process (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
    env: process.env.NODE_DISABLE_COMPILE_CACHE ? {} : { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), "imprint-test-compile-cache") },
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
    projects: [
      {
        extends: true,
        test: {
          name: "isolated",
          include: TEST_FILES,
          exclude: [...NOT_TESTS, ...SHARED_PROCESS_FILES],
          globalSetup: [GLOBAL_SETUP],
        },
      },
      {
        extends: true,
        test: { name: SHARED_PROCESS_PROJECT, include: SHARED_PROCESS_FILES, exclude: NOT_TESTS, isolate: false, globalSetup: [GLOBAL_SETUP] },
      },
    ],
  },
});
