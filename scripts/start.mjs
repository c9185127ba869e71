// `npm start`: installs and builds when needed, then runs the whole stack locally (embedded
// PostgreSQL, nats-server, every service, the gateway) until Ctrl-C, restarting any of them that dies.
// SIGHUP to the launcher (its pid is in stack.json; `npm run admin -- restart` sends it) replaces
// every Node process, one at a time.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { prepare, REPO_ROOT, requireNode } from "./lib/setup.mjs";

const LAUNCHER_FLAG = "--launcher";

if (!process.argv.includes(LAUNCHER_FLAG)) {
  await requireNode();
  prepare({ quiet: true });
  // The stack runs under a launcher in its own process group. Ctrl-C in a terminal signals the whole
  // foreground group, which would stop PostgreSQL and the services before the gateway; this way only
  // this process sees it and asks the launcher to stop everything in order. A SIGHUP here is the
  // terminal going away (it stops the stack); the launcher's own SIGHUP is a rolling restart.
  const launcher = spawn(process.execPath, [import.meta.filename, LAUNCHER_FLAG], { stdio: "inherit", detached: true });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (launcher.exitCode === null) launcher.kill("SIGTERM");
    });
  }
  launcher.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await runLauncher();
}

async function runLauncher() {
  // Whoever reads this output may be gone (a pipe closed by the same Ctrl-C): the orderly stop must
  // still run to its end rather than die on EPIPE and leave the services and databases running.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  const stackLib = await import("./lib/stack.mjs");
  const restartLib = await import("./lib/restart.mjs");
  const env = { ...process.env };
  const dataDir = resolve(env.IMPRINT_DATA_DIR || join(REPO_ROOT, ".imprint"));
  const color = process.stdout.isTTY && !env.NO_COLOR;
  // The children write into pipes, where their logs default to JSON. On a terminal they write short
  // pretty lines instead (colored like this terminal), without their name: the prefix below shows it.
  env.LOG_FORMAT ||= process.stdout.isTTY ? "pretty" : "json";
  if (env.LOG_FORMAT === "pretty") {
    env.LOG_PREFIXED = "true";
    if (color && !env.FORCE_COLOR) env.FORCE_COLOR = "1";
  }
  const paint = (code, text) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const fail = (message, lines = []) => {
    console.error(paint("31", `✖ ${message}`));
    if (lines.length) console.error(lines.map((line) => `   ${line}`).join("\n"));
  };

  let hosting;
  let replicas;
  try {
    hosting = stackLib.resolveHosting(env);
    replicas = stackLib.resolveReplicas(env, hosting);
  } catch (error) {
    fail(error.message);
    process.exit(1);
  }
  const gatewayPort = parsePort("IMPRINT_PORT", env.IMPRINT_PORT, 8080);
  const readerPort = parsePort("READER_PORT", env.READER_PORT, 8090);
  const appPort = parsePort("APP_PORT", env.APP_PORT, 8070);
  const servicePorts = {};
  const databaseUrls = {};
  for (const service of stackLib.SERVICES) {
    servicePorts[service.name] = parsePort(stackLib.envName(service, "GRPC_PORT"), env[stackLib.envName(service, "GRPC_PORT")], 0);
    const url = env[stackLib.envName(service, "DATABASE_URL")];
    if (url) databaseUrls[service.name] = url;
  }

  try {
    await stackLib.prepareDataDir(dataDir, { embeddedPostgres: stackLib.SERVICES.some((service) => !databaseUrls[service.name]) });
  } catch (error) {
    fail(error.message);
    process.exit(1);
  }
  const running = otherLauncher(dataDir);
  if (running) {
    fail(`another \`npm start\` (pid ${running}) already uses ${dataDir}: stop it first, or set IMPRINT_DATA_DIR to another directory`);
    process.exit(1);
  }
  if (!env.NATS_URL) {
    try {
      await stackLib.ensureNatsServer();
    } catch (error) {
      fail(error.message);
      process.exit(1);
    }
  }
  const bootstrap = await stackLib.resolveBootstrapToken(dataDir, env);
  const pageTokenSecret = await stackLib.resolvePageTokenSecret(dataDir, env);

  // Children's output, prefixed with the process name (copies: `content#2`). PostgreSQL and NATS only speak when asked (LOG_LEVEL=debug).
  const sources = [...stackLib.SERVICES, stackLib.READER, stackLib.GATEWAY].map((s) => s.name).concat(stackLib.ONE_PROCESS_NAME);
  const copySuffix = replicas > 1 ? `#${replicas}`.length : 0;
  const width = Math.max(...sources.map((name) => name.length + copySuffix), "postgres".length);
  const colors = ["36", "35", "33", "32", "34"];
  const colorOf = (source) => {
    const index = sources.indexOf(source.replace(/#\d+$/, ""));
    return index === -1 ? "90" : colors[index % colors.length];
  };
  const showInfra = env.LOG_LEVEL === "debug";
  const onLog = (source, line) => {
    if ((source === "postgres" || source === "nats") && !showInfra) return;
    process.stdout.write(`${paint(colorOf(source), `${source.padEnd(width)} |`)} ${line}\n`);
  };

  let stack = null;
  let shuttingDown = false;
  const shutdown = async (code) => {
    if (shuttingDown) {
      // A second Ctrl-C: stop waiting for the services' graceful exits, but still stop NATS and
      // PostgreSQL (each takes a moment): left running, they would hold the data directory and
      // its ports, and the next start would fail.
      for (const p of stack?.processes ?? []) p.kill();
      await stack?.infra.stop().catch((error) => fail(`stop failed: ${error.message}`));
      process.exit(1);
    }
    shuttingDown = true;
    console.log(paint("2", "» stopping: gateway and reader, then services, then NATS and PostgreSQL"));
    await stack?.stop().catch((error) => fail(`stop failed: ${error.message}`));
    await stackLib.removeStackJson(dataDir);
    await restartLib.removeRestartStatus(dataDir);
    process.exit(code);
  };
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void shutdown(0));

  // SIGHUP: every Node process replaced, one at a time, each new one ready before the next goes
  // (stack.restart). Its progress goes to the terminal and to restart.json, which `npm run admin --
  // restart` follows. Asked again during one, it runs once more after it (never twice queued).
  let restartStatus = null;
  let restartsStarted = 0;
  // One write after the other, each of the state when it was asked, so the file ends with the last.
  let writes = Promise.resolve();
  const serially = (write) => (writes = writes.then(write).catch((error) => fail(`could not write to ${dataDir}: ${error.message}`)));
  const saveRestartStatus = () => {
    const status = { ...restartStatus, steps: [...restartStatus.steps], queued: stack?.restartQueued ?? false };
    return serially(() => restartLib.writeRestartStatus(dataDir, status));
  };
  const saveStackJson = () => serially(() => stackLib.writeStackJson(dataDir, stack));
  const onRestartStep = (step) => {
    if (step.type === "started") {
      restartStatus = {
        pid: process.pid,
        id: ++restartsStarted,
        state: "running",
        startedAt: Date.now(),
        finishedAt: null,
        names: step.names,
        current: null,
        steps: [],
        queued: false,
        error: null,
      };
      console.log(
        paint("2", `» rolling restart: ${step.names.length} process${step.names.length === 1 ? "" : "es"}, one at a time (${step.names.join(", ")})`),
      );
    } else if (step.type === "replacing") {
      restartStatus.current = step.name;
    } else if (step.type === "replaced") {
      restartStatus.steps.push({ name: step.name, oldPid: step.oldPid, newPid: step.newPid, startedAt: step.startedAt, ms: step.ms });
      console.log(paint("32", `✔ ${restartLib.describeStep(step)}`));
      void saveStackJson();
    }
    void saveRestartStatus();
  };
  const rollingRestart = async () => {
    if (shuttingDown) return;
    if (!stack) {
      console.log(paint("33", "» SIGHUP before the stack is ready: ignored (a rolling restart needs every process up)"));
      return;
    }
    if (stack.restartQueued) {
      console.log(paint("2", "» SIGHUP during a rolling restart: another one is already queued"));
      return;
    }
    const queued = stack.restarting;
    const restarted = stack.restart({ onStep: onRestartStep });
    if (queued) {
      console.log(paint("2", "» SIGHUP during a rolling restart: queued, it runs once this one is done"));
      void saveRestartStatus();
    }
    try {
      await restarted;
      restartStatus = { ...restartStatus, state: "done", finishedAt: Date.now(), current: null };
      console.log(paint("32", `✔ ${restartLib.describeRestartEnd(restartStatus)}`));
    } catch (error) {
      if (shuttingDown) return;
      restartStatus = {
        ...(restartStatus ?? { pid: process.pid, id: ++restartsStarted, startedAt: Date.now(), names: [], current: null, steps: [] }),
        state: "failed",
        finishedAt: Date.now(),
        error: error.message,
      };
      fail(restartLib.describeRestartEnd(restartStatus), error.lastLines?.slice(-10) ?? []);
    }
    await saveRestartStatus();
  };
  process.on("SIGHUP", () => void rollingRestart());
  // A restart.json left by an earlier launcher describes none of this one's processes.
  await restartLib.removeRestartStatus(dataDir);

  console.log(paint("2", `» data in ${dataDir}`));
  try {
    stack = await stackLib.startStack({
      dataDir,
      persistent: true,
      env,
      hosting,
      replicas,
      gatewayPort,
      readerPort,
      appPort,
      gatewayHost: env.IMPRINT_HOST || undefined,
      servicePorts,
      databaseUrls,
      natsUrl: env.NATS_URL || undefined,
      postgresPort: parsePort("IMPRINT_POSTGRES_PORT", env.IMPRINT_POSTGRES_PORT, 0) || undefined,
      bootstrap: { token: bootstrap.token, email: env.IMPRINT_BOOTSTRAP_EMAIL, orgTitle: env.IMPRINT_BOOTSTRAP_ORG_TITLE },
      pageTokenSecret,
      onLog,
    });
  } catch (error) {
    fail(error.message, error.lastLines ?? []);
    process.exit(1);
  }
  if (shuttingDown) return;

  // A process that dies is restarted (with backoff, forever): say which, and when it is back.
  stack.onEvent((event) => {
    // A process restarted after a crash has a new pid: stack.json names the current ones.
    if (event.type === "restarted") void saveStackJson();
    const line = stackLib.describeEvent(event);
    if (!line) return;
    if (event.type === "ready") console.log(paint("32", line));
    else {
      console.error(paint("33", line));
      // What a process said before it exited by itself may explain why; a kill leaves nothing to read.
      const lines = event.type === "exited" && event.code !== null && stack.units[event.name]?.current?.lastLines?.();
      if (lines?.length)
        console.error(
          lines
            .slice(-10)
            .map((l) => `   ${l}`)
            .join("\n"),
        );
    }
  });
  await saveStackJson();

  const url = stack.gatewayUrl;
  // The bootstrap organization's owner (identity's IMPRINT_BOOTSTRAP_EMAIL, whose default this is).
  const adminEmail = env.IMPRINT_BOOTSTRAP_EMAIL || "admin@imprint.local";
  console.log(
    [
      "",
      paint("32", `✔ Imprint is ready at ${url}`),
      `  token:   ${bootstrap.token}   ${paint("2", `(from ${bootstrap.source})`)}`,
      `  app:     ${url}/   ${paint("2", `(the browser app; its first admin is ${adminEmail}: npm run admin -- password ${adminEmail}, then sign in there)`)}`,
      `  try:     curl -H "Authorization: Bearer ${bootstrap.token}" ${url}/v1/orgs`,
      `  sites:   ${stack.readerUrl}   ${paint("2", "(the reader: published sites; `npm run admin -- demo` publishes these docs there)")}`,
      `  admin:   npm run admin -- --help`,
      ...metricsLines(stack.metricsUrls, env.METRICS_TOKEN, paint),
      paint(
        "2",
        hosting === "split"
          ? replicas > 1
            ? `  hosting: ${replicas} copies of every service, the reader, the app and the gateway, one process each (IMPRINT_HOSTING=split IMPRINT_REPLICAS=${replicas})`
            : "  hosting: one process per service, the reader, the app and the gateway (IMPRINT_HOSTING=split)"
          : "  hosting: every service, the reader, the app and the gateway in one process (IMPRINT_HOSTING=split: one each)",
      ),
      paint("2", "  A process that dies is restarted (1 s, doubling up to 30 s); Ctrl-C stops everything; data stays in the data directory."),
      paint("2", `  Rolling restart (every process replaced, one at a time): npm run admin -- restart, or kill -HUP ${process.pid}.`),
      "",
    ].join("\n"),
  );
}

/** Where Prometheus scrapes each process: one line for one process, one per process when split. */
function metricsLines(metricsUrls, token, paint) {
  const auth = token ? paint("2", "   (Authorization: Bearer $METRICS_TOKEN)") : "";
  const entries = Object.entries(metricsUrls);
  if (entries.length === 1) return [`  metrics: ${entries[0][1]}${auth}   ${paint("2", "(Prometheus, the whole process)")}`];
  return [`  metrics: ${paint("2", `(Prometheus, one endpoint per process)${auth}`)}`, ...entries.map(([name, url]) => `           ${name.padEnd(14)} ${url}`)];
}

/** A port from the environment: unset → fallback; anything but 1..65535 stops with a message. */
function parsePort(name, value, fallback) {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`✖ ${name} must be a port number between 1 and 65535, got "${value}"`);
    process.exit(1);
  }
  return port;
}

/** The pid of a live launcher that wrote `<data>/stack.json`, or null (a stale file is ignored). */
function otherLauncher(dataDir) {
  const file = join(dataDir, "stack.json");
  if (!existsSync(file)) return null;
  try {
    const { pid } = JSON.parse(readFileSync(file, "utf8"));
    if (!Number.isInteger(pid) || pid === process.pid) return null;
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}
