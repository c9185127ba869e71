// Steps every entry script shares before it can use the workspaces: the Node version check, the
// install and the build. Only node: built-ins here, because this runs before `npm install`.
import { spawnSync } from "node:child_process";
import { existsSync, statSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MIN_NODE_MAJOR = 24;

/** Exits with a one-line message when Node is older than the stack needs (MikroORM 7, vitest 5, OTel). */
export function requireNode() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < MIN_NODE_MAJOR) {
    console.error(`Imprint needs Node ${MIN_NODE_MAJOR} or newer; this is Node ${process.versions.node}. Put Node ${MIN_NODE_MAJOR} first on PATH (see .nvmrc).`);
    process.exit(1);
  }
}

/** Environment for child tools: turbo must not phone home. */
export function toolEnv(extra = {}) {
  return { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", ...extra };
}

/** Runs a command with inherited stdio; returns its exit status (1 when it could not start). */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, stdio: "inherit", env: toolEnv(), ...options });
  if (result.error) {
    console.error(`could not run ${command}: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

/**
 * Why an install is needed, or null. npm keeps a copy of the lockfile it installed from in
 * node_modules/.package-lock.json, so a newer package-lock.json means dependencies changed.
 */
export function installReason(root = REPO_ROOT) {
  const modules = join(root, "node_modules");
  const lockfile = join(root, "package-lock.json");
  const installed = join(modules, ".package-lock.json");
  if (!existsSync(modules)) return "node_modules is missing";
  if (!existsSync(installed)) return "node_modules was not installed by npm";
  if (existsSync(lockfile) && statSync(lockfile).mtimeMs > statSync(installed).mtimeMs) return "package-lock.json changed since the last install";
  return null;
}

/** Installs dependencies when needed: `npm ci` on a fresh clone with a lockfile, else `npm install`. */
export function installIfNeeded(root = REPO_ROOT) {
  const reason = installReason(root);
  if (!reason) return 0;
  const fresh = !existsSync(join(root, "node_modules")) && existsSync(join(root, "package-lock.json"));
  const args = fresh ? ["ci", "--no-audit", "--no-fund"] : ["install", "--no-audit", "--no-fund"];
  console.log(`» ${reason}: npm ${args[0]}`);
  const status = run("npm", args, { cwd: root });
  // npm leaves the hidden lockfile untouched when nothing changed; mark it fresh so the next run skips.
  const installed = join(root, "node_modules", ".package-lock.json");
  if (status === 0 && existsSync(installed)) {
    const now = new Date();
    utimesSync(installed, now, now);
  }
  return status;
}

/** Builds every workspace through turbo (cached, so a second run takes well under a second). */
export function build({ quiet = false } = {}) {
  const args = ["run", "build"];
  if (quiet) args.push("--output-logs=errors-only");
  return run(join(REPO_ROOT, "node_modules", ".bin", "turbo"), args);
}

/** Install then build, exiting the process with a message on failure. */
export function prepare({ quiet = false } = {}) {
  requireNode();
  if (installIfNeeded() !== 0) {
    console.error("npm install failed (see above)");
    process.exit(1);
  }
  if (!quiet) console.log("» building (turbo run build)");
  if (build({ quiet }) !== 0) {
    console.error("build failed (see above)");
    process.exit(1);
  }
}
