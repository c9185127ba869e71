// The sandbox that runs integration scripts (GitBook's Cloudflare-Workers-style ESM bundles) in
// QuickJS, in worker threads, within limits. See README.md beside this file.
import type { SandboxLimits } from "./types.js";

export type {
  SandboxFailure,
  SandboxFetch,
  SandboxHttpRequest,
  SandboxHttpResponse,
  SandboxLimits,
  SandboxLogLevel,
  SandboxLogLine,
  SandboxOutcome,
  SandboxPool,
  SandboxPoolOptions,
  SandboxRunInput,
} from "./types.js";
export { createSandboxPool } from "./pool.js";

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  memoryBytes: 64 * 1024 * 1024,
  cpuMs: 1000,
  wallMs: 10_000,
  outputBytes: 5 * 1024 * 1024,
});
