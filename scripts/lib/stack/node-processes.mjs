// The stack's Node processes: their V8 flags, spawning with the telemetry preload, readiness probes.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { REPO_ROOT } from "../setup.mjs";
import { READY_MESSAGE } from "../targets.mjs";

/** How long a process may take to exit after SIGTERM before it is killed. */
export const FORCE_KILL_AFTER_MS = 15_000;
const LAST_LINES_KEPT = 40;

/**
 * Extra V8 flags for every long-running process of the stack (IMPRINT_NODE_FLAGS; docs/configuration.md
 * and docs/benchmarks.md § Memory). Unset, every process gets a young generation of at most 8 MB per
 * semi-space instead of V8's default for a large machine: the young generation fills and stays
 * committed during start-up, so this alone takes 40–50 MB off each process's RSS at idle, and caps
 * what request bursts leave behind. Its heap grows by half its live size between collections
 * instead of up to four times. Neither sets a limit, so nothing runs out of memory because of
 * them (the Helm chart, whose pods have memory limits, sets --max-old-space-size from them).
 */
export const DEFAULT_NODE_FLAGS = "--max-semi-space-size=8 --heap-growing-percent=50";

/**
 * Added to the defaults of a process that hosts none of MEMORY_SAVER_SKIPPED: V8's memory saver mode
 * hands the pages a collection empties back to the system at once. Without it V8 keeps them mapped
 * for reuse until the process is quiet and its memory reducer runs (see keepMemoryReducerWorking
 * in the runtime), so a busy process's RSS stays at its largest heap so far (over the bench, 20–75 MB
 * more in publishing, integration and collaboration, and no cost above the noise in their figures).
 */
export const MEMORY_SAVER_FLAG = "--memory-saver-mode";

/**
 * The targets whose processes run without the memory saver mode, because there it cost speed: under
 * content's bulk writes and concurrent reads (a third more time seeding 10,000 pages, page-by-path
 * p99 1.4× → 1.7–1.8× the organization read's), and on the hottest route through the gateway and
 * identity (the split organization read at 0.16–0.21× the floor instead of 0.18–0.28×). Measured in
 * docs/benchmarks.md § Memory.
 */
export const MEMORY_SAVER_SKIPPED = ["content", "identity", "gateway"];

/** The V8 flags of a process of the stack that hosts `env.IMPRINT_TARGETS` (all of them if unset). */
export function serviceNodeFlags(env = process.env) {
  if (env.IMPRINT_NODE_FLAGS !== undefined) return env.IMPRINT_NODE_FLAGS.split(/\s+/).filter(Boolean);
  const targets = (env.IMPRINT_TARGETS ?? "all").split(",").map((name) => name.trim());
  const saves = !targets.includes("all") && !targets.some((name) => MEMORY_SAVER_SKIPPED.includes(name));
  return [...DEFAULT_NODE_FLAGS.split(" "), ...(saves ? [MEMORY_SAVER_FLAG] : [])];
}

/**
 * glibc's malloc arenas for every process of the stack, unless the environment sets its own: by
 * default each thread that allocates (V8's compiler and GC workers) gets an arena of its own, and
 * what it frees stays in it (two arenas of ~16 MB each in the gateway under load). Two arenas in
 * all took 4–24 MB off each process's peak RSS (docs/benchmarks.md § Memory). The image sets the same.
 */
export const DEFAULT_MALLOC_ARENA_MAX = "2";

/**
 * Spawns one Node process of the stack with the telemetry preload. Its output goes line by line to
 * `onLine`, and the last lines are kept for failure reports. An IPC channel tells when the process
 * says every target it hosts has started (`reportedReady`, see READY_MESSAGE).
 */
export function spawnNodeProcess({ name, entry, env, onLine = () => {} }) {
  const child = spawn(process.execPath, [...serviceNodeFlags(env), "--import", "@imprint/runtime/telemetry/preload", join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { MALLOC_ARENA_MAX: DEFAULT_MALLOC_ARENA_MAX, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let reportedReady = false;
  child.on("message", (message) => {
    if (message?.type === READY_MESSAGE) reportedReady = true;
  });
  // The channel alone keeps no one waiting: the launcher lives as long as it decides.
  child.channel?.unref();
  const lastLines = [];
  const keep = (line) => {
    lastLines.push(line);
    if (lastLines.length > LAST_LINES_KEPT) lastLines.shift();
    onLine(line);
  };
  createInterface({ input: child.stdout }).on("line", keep);
  createInterface({ input: child.stderr }).on("line", keep);
  const exited = new Promise((resolveExit) => {
    child.once("exit", (code, signal) => resolveExit({ code, signal }));
    child.once("error", (error) => {
      keep(`could not start: ${error.message}`);
      resolveExit({ code: 1, signal: null });
    });
  });
  let stopping = null;
  return {
    name,
    child,
    get pid() {
      return child.pid;
    },
    get reportedReady() {
      return reportedReady;
    },
    exited,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    lastLines: () => [...lastLines],
    /** SIGTERM, then SIGKILL after `graceMs`. */
    stop(graceMs = FORCE_KILL_AFTER_MS) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return exited;
        child.kill("SIGTERM");
        const timer = setTimeout(() => {
          keep(`did not stop within ${graceMs} ms: killed`);
          child.kill("SIGKILL");
        }, graceMs);
        const result = await exited;
        clearTimeout(timer);
        return result;
      })();
      return stopping;
    },
    kill() {
      if (this.running) child.kill("SIGKILL");
    },
    signal(signal) {
      if (this.running) child.kill(signal);
    },
  };
}

/** Polls `probe` every `intervalMs` until it returns true; rejects after `timeoutMs` or when `failed` rejects. */
export async function waitUntil(probe, { timeoutMs, intervalMs = 150, failed, what }) {
  const deadline = Date.now() + timeoutMs;
  let abort = null;
  failed.catch((error) => {
    abort = error;
  });
  for (;;) {
    if (abort) throw abort;
    if (await probe().catch(() => false)) return;
    if (abort) throw abort;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** True when GET <gatewayUrl>/readyz answers 200: the gateway serves (whichever services are down). */
export async function isGatewayReady(gatewayUrl) {
  const response = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return response.status === 200;
}

/** True when GET <readerUrl>/healthz answers 200 (the reader reads its upstreams per request: it is ready once it listens). */
export async function isReaderReady(readerUrl) {
  const response = await fetch(`${readerUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return response.status === 200;
}
