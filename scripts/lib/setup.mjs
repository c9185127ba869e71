// Steps every entry script shares before it can use the workspaces: the Node version check, the
// install and the build. Only node: built-ins here, because this runs before `npm install`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, utimesSync } from "node:fs";
import { constants as osConstants, homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MIN_NODE_MAJOR = 24;

/**
 * Makes sure this script runs on Node 24 or newer. On an older Node (a fresh machine's system Node),
 * Node 24 is installed once from the npm registry into a cache folder (`IMPRINT_CACHE_DIR`, default
 * ~/.cache/imprint) and this very command runs again under it, with that Node first on PATH so that
 * npm and every child process use it too. Resolves only when the current Node is new enough; otherwise
 * the process ends with the re-run's exit code. `npm start`, `npm test`, `npm run …` and `.ci/run` all
 * come through here.
 */
export async function requireNode() {
  if (nodeMajor(process.versions.node) >= MIN_NODE_MAJOR) return;
  if (process.env.IMPRINT_NODE_REEXEC) {
    console.error(
      `Imprint needs Node ${MIN_NODE_MAJOR} or newer and could not switch to it (still ${process.versions.node}): put Node ${MIN_NODE_MAJOR} first on PATH (see .nvmrc).`,
    );
    process.exit(1);
  }
  const binDir = installNode();
  const node = join(binDir, "node");
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ""}`, IMPRINT_NODE_REEXEC: "1" },
  });
  // Ctrl-C reaches the re-run directly (a terminal signals the whole foreground process group), so
  // SIGINT is only waited out here; a SIGTERM or SIGHUP sent to this process alone is passed on.
  process.on("SIGINT", () => {});
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.on("error", (error) => {
      console.error(`could not run ${node}: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (status, signal) => resolve(status ?? (signal ? 128 + (osConstants.signals[signal] ?? 1) : 1)));
  });
  process.exit(code);
}

function nodeMajor(version) {
  return Number(String(version).replace(/^v/, "").split(".")[0]) || 0;
}

/** The `bin` folder of a Node 24 installed into the cache folder (installed first when missing). */
function installNode() {
  const prefix = join(process.env.IMPRINT_CACHE_DIR || join(homedir(), ".cache", "imprint"), `node${MIN_NODE_MAJOR}`);
  const binDir = join(prefix, "node_modules", ".bin");
  const installed = spawnSync(join(binDir, "node"), ["-p", "process.versions.node"], { encoding: "utf8" });
  if (installed.status === 0 && nodeMajor(installed.stdout.trim()) >= MIN_NODE_MAJOR) return binDir;
  // The platform package carries the binary itself (no install script, no download of its own).
  const pkg = `node-${process.platform}-${process.arch}@${MIN_NODE_MAJOR}`;
  console.log(`» Node ${process.versions.node} is older than ${MIN_NODE_MAJOR}: installing ${pkg} into ${prefix} (once), then running under it`);
  mkdirSync(prefix, { recursive: true });
  const result = spawnSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", pkg], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const check = spawnSync(join(binDir, "node"), ["-p", "process.versions.node"], { encoding: "utf8" });
  if (result.status !== 0 || check.status !== 0) {
    console.error(`✖ could not install ${pkg} from the npm registry: install Node ${MIN_NODE_MAJOR} yourself and put it first on PATH (see .nvmrc)`);
    process.exit(1);
  }
  return binDir;
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

/**
 * Builds every workspace through turbo (cached, so a second run takes well under a second). Quiet:
 * silent when a dry run finds every build in turbo's cache (turbo still runs: a cache hit restores
 * deleted outputs), else one line names what is built; turbo's own output shows only when it fails.
 */
export function build({ quiet = false } = {}) {
  const turbo = join(REPO_ROOT, "node_modules", ".bin", "turbo");
  if (!quiet) return run(turbo, ["run", "build"]);
  const stale = staleWorkspaces(turbo);
  if (stale?.length !== 0) console.log(`» building ${stale ? stale.join(", ") : "the workspaces"} (turbo run build)`);
  const result = spawnSync(turbo, ["run", "build", "--output-logs=errors-only"], {
    cwd: REPO_ROOT,
    env: toolEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status === 0) return 0;
  process.stdout.write(result.stdout ?? "");
  process.stderr.write(result.stderr ?? "");
  if (result.error) console.error(`could not run turbo: ${result.error.message}`);
  return result.status ?? 1;
}

/** The workspaces turbo's cache has no build of, from a dry run; null when it cannot tell. */
function staleWorkspaces(turbo) {
  const dry = spawnSync(turbo, ["run", "build", "--dry=json"], { cwd: REPO_ROOT, env: toolEnv(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (dry.status !== 0) return null;
  try {
    return JSON.parse(dry.stdout)
      .tasks.filter((task) => task.cache?.status !== "HIT")
      .map((task) => task.package);
  } catch {
    return null;
  }
}

/** Install then build, exiting the process with a message on failure. */
export function prepare({ quiet = false } = {}) {
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
