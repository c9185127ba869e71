#!/usr/bin/env node
// Entry point of the container image (deploy/Dockerfile) and of every process `npm start` runs: one
// image and one code path, the targets chosen by argument or by IMPRINT_TARGETS.
//   <targets>                  serve them in this process: one (gateway, reader, app, identity, content,
//                              collaboration, publishing, integration), several (identity,content), or all
//   (no argument)              serve the targets of IMPRINT_TARGETS
//   migrate <services>         apply those services' pending migrations (one, several, or all), then exit
// Every target reads its per-target settings first (CONTENT_DATABASE_URL over DATABASE_URL, …), so
// the same variables serve one process or one per target (docs/configuration.md#hosting).
// The image runs it as `node --import @imprint/runtime/telemetry/preload scripts/entrypoint.mjs …`,
// so tracing is set up before any instrumented module loads; the targets run in this process (no
// child to forward signals to).
import { loadTargets, READY_MESSAGE, runtimeModule, SERVICE_TARGET_NAMES, TARGET_NAMES } from "./lib/targets.mjs";

const [command, ...rest] = process.argv.slice(2);
const usage = (problem) => {
  process.stderr.write(
    `usage: <image> ${["all", ...TARGET_NAMES].join(" | ")} | <targets separated by commas>   (no argument: IMPRINT_TARGETS)\n` +
      `       <image> migrate all | ${SERVICE_TARGET_NAMES.join(" | ")} | <services separated by commas>\n` +
      (problem ? `${problem}\n` : ""),
  );
  process.exit(2);
};

const core = await runtimeModule("core.js");
/** The targets `list` names, or the usage with its problem. */
const parse = (list, known, setting) => {
  try {
    return core.parseTargetList(list, known, setting);
  } catch (error) {
    if (error instanceof core.ConfigError) usage(error.problems.join("\n"));
    throw error;
  }
};

if (command === "migrate") {
  if (rest.length !== 1) usage(rest.length === 0 ? "migrate: name the services" : `unknown command: ${process.argv.slice(2).join(" ")}`);
  const names = parse(rest[0], SERVICE_TARGET_NAMES, "migrate");
  const { migrateService } = await runtimeModule("index.js");
  const logger = core.createLogger(names.length === 1 ? names[0] : "imprint");
  // One after the other: each service's migrations under its own database's lock.
  core.runTask(async () => {
    for (const target of await loadTargets(names)) {
      await migrateService(target, core.targetEnv(target.name, process.env), names.length === 1 ? logger : logger.child({ target: target.name }));
    }
  }, logger);
} else {
  if (rest.length > 0) usage(`unknown command: ${process.argv.slice(2).join(" ")}`);
  const list = command ?? process.env.IMPRINT_TARGETS;
  if (!list) usage("no targets: pass them as the argument or set IMPRINT_TARGETS");
  const names = parse(list, TARGET_NAMES, command === undefined ? "IMPRINT_TARGETS" : "targets");
  // One target logs as itself (as when it ran alone); several share the process's own lines.
  const logger = core.createLogger(names.length === 1 ? names[0] : "imprint");
  core.runMain(async () => {
    const hosted = await core.hostTargets(await loadTargets(names), process.env, { log: logger });
    if (names.length > 1) logger.info("targets started", { targets: names.join(","), ...hosted.addresses });
    // Started by `npm start` (an IPC channel): tell it every target serves. Copies of the gateway or
    // the reader share one port, so asking that port cannot tell whether this copy is the one answering.
    if (process.connected) process.send?.({ type: READY_MESSAGE });
    return hosted;
  }, logger);
}
