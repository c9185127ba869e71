// Orchestration of a local Imprint stack: PostgreSQL and NATS, the services and the gateway in one
// process or one process each (IMPRINT_HOSTING), readiness and an orderly stop. `npm start`, `npm run
// bench` and the stack tests share it. Every process runs scripts/entrypoint.mjs with the same
// environment, which names each target's settings (<NAME>_DATABASE_URL, <NAME>_GRPC_PORT, …); only
// IMPRINT_TARGETS differs. Once ready, every process it started (PostgreSQL and nats-server too) is
// supervised: one that dies is restarted on the same ports and data, with backoff, as Kubernetes
// would. Plain ESM; the runtime's built infrastructure helpers are imported lazily, after the build.
import {
  APP,
  checkReplicas,
  ENTRYPOINT,
  envName,
  GATEWAY,
  HOSTINGS,
  HTTP_COPY_DRAIN_MS,
  ONE_PROCESS_NAME,
  READER,
  resolveHosting,
  resolveReplicas,
  SERVICES,
  SHARED_HTTP_PORTS,
} from "./stack/hosting.mjs";
import { startInfrastructure } from "./stack/infrastructure.mjs";
import { isGatewayReady, isReaderReady, spawnNodeProcess, waitUntil } from "./stack/node-processes.mjs";
import { infrastructureModule, runtimeModule } from "./stack/runtime-modules.mjs";
import { ensureListenerHandover } from "./stack/shared-ports.mjs";
import { startUnit } from "./stack/supervision.mjs";

// The launcher's parts, one concern each (scripts/lib/stack/); this module orchestrates them and is
// what `npm start`, the bench, chaos and the tests import.
export {
  APP,
  checkReplicas,
  ENTRYPOINT,
  envName,
  GATEWAY,
  HOSTINGS,
  HTTP_COPY_DRAIN_MS,
  ONE_PROCESS_NAME,
  RATE_LIMITS_OUT_OF_REACH,
  READER,
  resolveHosting,
  resolveReplicas,
  SERVICES,
  SHARED_HTTP_PORTS,
  stackJsonKey,
} from "./stack/hosting.mjs";
export { generateTokenSecret, prepareDataDir, resolveBootstrapToken, resolvePageTokenSecret } from "./stack/data-dir.mjs";
export { childPids, isAlive, startInfrastructure } from "./stack/infrastructure.mjs";
export {
  DEFAULT_NODE_FLAGS,
  FORCE_KILL_AFTER_MS,
  isGatewayReady,
  isReaderReady,
  serviceNodeFlags,
  spawnNodeProcess,
} from "./stack/node-processes.mjs";
export { removeStackJson, stackDescription, writeFileAtomically, writeStackJson } from "./stack/stack-json.mjs";
export {
  describeEvent,
  describeExit,
  RESTART_INITIAL_DELAY_MS,
  RESTART_MAX_DELAY_MS,
  RESTART_RESET_AFTER_MS,
  restartDelayMs,
  startUnit,
} from "./stack/supervision.mjs";
export { ensureChromium, ensureNatsServer } from "./stack/system-packages.mjs";

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
 * `appPort` (the app's, which the gateway forwards the app's paths to; 0 = a free port), `natsUrl`, `databaseUrls` {name: url}, `bootstrap` {token, email, orgTitle}, `pageTokenSecret` (the
 * gateway's IMPRINT_PAGE_TOKEN_SECRET), `onLog(source, line)`, `readyTimeoutMs`.
 *
 * With several copies each service copy has its own gRPC port and every caller gets all of them
 * (`<NAME>_GRPC_ADDRESS`, a list it balances over); the gateway's copies share its port, the
 * reader's its own (SO_REUSEPORT). Copies are named `<target>#<n>` (`content#2`); one copy keeps the
 * target's name.
 *
 * The returned stack has `hosting`, `replicas`, `gatewayUrl` (also the app's: the gateway forwards
 * its pages), `appUrl` (where the app listens itself), `readerUrl` (where published sites are
 * read; the gateway builds `urls.published` on it), `grpcAddresses` {name: "127.0.0.1:port[,…]"},
 * `processes` (split: the services' copies, then the reader's, the app's and the gateway's; one-process: one
 * named "imprint"), `infra`, `onUnexpectedExit(callback)`, `restart({ onStep })` (a rolling restart
 * of every Node process, one at a time; asked during another, it runs once that one is done),
 * `restarting` and `stop()` (the gateway first, then the services in reverse dependency order, the
 * copies of a target together, then NATS and PostgreSQL). `metricsUrls` says where each process
 * serves its Prometheus metrics: split, each service copy on a METRICS_PORT of its own, the reader
 * and the gateway on their HTTP ports; one process, the gateway's port for all of it.
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
  if (shareHttpPorts) {
    const handover = ensureListenerHandover();
    if (handover.changed) onLog("launcher", "net.ipv4.tcp_migrate_req set to 1: a copy that stops hands the connections queued on its port to the next copy");
    if (handover.state === "off") onLog("launcher", `a rolling restart may reset a request now and then: ${handover.hint}`);
  }

  const gatewayPort = options.gatewayPort || (await getFreePort());
  if (options.gatewayPort && !(await isPortFree(gatewayPort, probeHost))) {
    throw new StackStartError(`port ${gatewayPort} is already in use: set IMPRINT_PORT to a free port (e.g. IMPRINT_PORT=8081 npm start)`);
  }
  const readerPort = options.readerPort || (await getFreePort());
  if (options.readerPort && !(await isPortFree(readerPort, probeHost))) {
    throw new StackStartError(`port ${readerPort} is already in use: set READER_PORT to a free port (e.g. READER_PORT=8091 npm start)`);
  }
  let appPort = options.appPort || (await getFreePort());
  while (!options.appPort && (appPort === gatewayPort || appPort === readerPort)) appPort = await getFreePort();
  if (options.appPort && !(await isPortFree(appPort, probeHost))) {
    throw new StackStartError(`port ${appPort} is already in use: set APP_PORT to a free port (e.g. APP_PORT=8071 npm start)`);
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
    // The app listens on loopback: people reach it through the gateway, on the API's origin.
    const appUrl = `http://${probeHost}:${appPort}`;
    // Published URLs are built on the reader's public URL (IMPRINT_READER_URL, e.g. behind a proxy), else where it listens.
    const readerUrl = (baseEnv.IMPRINT_READER_URL || readerListenUrl).replace(/\/+$/, "");
    const grpcAddresses = {};
    /** Where each process (split: each service copy, the reader, the gateway; else the one process) serves /metrics. */
    const metricsUrls = {};
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
      APP_PORT: String(appPort),
      APP_HOST: probeHost,
      GATEWAY_APP_URL: appUrl,
      APP_API_URL: gatewayUrl,
      // No load balancer in front of these processes to drain away from: a stop here is immediate
      // unless the environment asks for a drain (copies of the gateway and the reader get one, below).
      SHUTDOWN_DRAIN_MS: baseEnv.SHUTDOWN_DRAIN_MS ?? "0",
      ...(shareHttpPorts ? { HTTP_REUSE_PORT: "true" } : {}),
    };
    const chosenPorts = new Set([gatewayPort, readerPort, appPort]);
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
        launch: async () =>
          spawnNodeProcess({ name, entry: ENTRYPOINT, env: { ...env, IMPRINT_TARGETS: targets, ...extra }, onLine: (line) => onLog(name, line) }),
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
          // Each copy's metrics on a port of its own, kept across its restarts.
          const metricsPort = await freePort();
          chosenPorts.add(metricsPort);
          metricsUrls[name] = `http://127.0.0.1:${metricsPort}/metrics`;
          await spawnProcess({
            name,
            target: service.name,
            copy,
            targets: service.name,
            extra: {
              OTEL_SERVICE_NAME: `imprint-${service.name}`,
              [envName(service, "GRPC_PORT")]: address.split(":")[1],
              [envName(service, "METRICS_PORT")]: String(metricsPort),
            },
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
      // The copies of the reader (of the gateway) share its port: a scrape there reaches one of them.
      metricsUrls[READER.name] = `${readerListenUrl}/metrics`;
      metricsUrls[APP.name] = `${appUrl}/metrics`;
      metricsUrls[GATEWAY.name] = `${gatewayUrl}/metrics`;
      for (const target of [READER.name, APP.name, GATEWAY.name]) {
        for (let copy = 1; copy <= copiesOf(target); copy++) {
          const name = copyName(target, copy);
          // The copies share one port: only the process itself can say it serves.
          await spawnProcess({
            name,
            target,
            copy,
            targets: target,
            extra: { OTEL_SERVICE_NAME: `imprint-${target}`, ...httpDrain(target) },
            probe: async (child) => child.reportedReady,
            surge: shareHttpPorts,
          });
          httpCopies.push(name);
        }
      }
      await allReady(httpCopies);
    } else {
      // One registry for the whole process, served on the gateway's port (and the reader's).
      metricsUrls[ONE_PROCESS_NAME] = `${gatewayUrl}/metrics`;
      // One process starts the services in dependency order, then the gateway. Its pretty lines
      // name the service each comes from: the launcher's prefix names only the process.
      await spawnProcess({
        name: ONE_PROCESS_NAME,
        target: ONE_PROCESS_NAME,
        targets: "all",
        extra: { OTEL_SERVICE_NAME: "imprint", LOG_PREFIXED: "false" },
        // The one process holds the services too: ready when they serve and so does the gateway.
        probe: async () =>
          (await isGatewayReady(gatewayUrl)) && (await Promise.all(SERVICES.map((service) => serving(grpcAddresses[service.name])))).every(Boolean),
      });
      await allReady([ONE_PROCESS_NAME]);
    }
    await waitUntil(() => isGatewayReady(gatewayUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the gateway (/readyz)" });
    await waitUntil(() => isReaderReady(readerListenUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the reader (/healthz)" });
    await waitUntil(() => isReaderReady(appUrl), { timeoutMs: readyTimeoutMs, failed: startFailed, what: "the app (/healthz)" });
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
    const restarts = oneAtATime(({ onStep = () => {} } = {}) =>
      stopping ? Promise.reject(new RollingRestartError("the stack is stopping")) : rollingRestart(onStep),
    );

    const units = Object.fromEntries([...Object.values(infra.units), ...processes].map((unit) => [unit.name, unit]));
    return {
      hosting,
      replicas,
      gatewayUrl,
      appUrl,
      readerUrl,
      grpcAddresses,
      metricsUrls,
      processes,
      units,
      infra,
      /** The environment the stack gives a process hosting `targets`, with `extra` on top (e.g. the bench's second gateway). */
      processEnv: (targets, extra = {}) => ({ ...env, IMPRINT_TARGETS: targets, ...extra }),
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
