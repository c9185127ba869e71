import { execFile, spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import type { CleanStart, HostingName } from "./hosting-report.js";

const run = promisify(execFile);

/** Lines of `npm start` that mark its phases: the launcher's first line, and the ready line. */
const LAUNCHER_STARTED = /» data in /;
const READY = /Imprint is ready at /;

/**
 * Settings of this process that would change what a fresh `npm start` does (a data directory, ports,
 * databases, the benchmark's own), left out of its environment: it runs with its defaults.
 */
const INHERITED_SETTING = /^(IMPRINT_|BENCH_)|_(DATABASE_URL|GRPC_PORT|GRPC_ADDRESS)$/;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` from a fresh `git clone` of `repository` (its committed HEAD), with the given hosting
 * and gateway port, timed until it prints that it is ready; then stopped with SIGTERM, as Ctrl-C
 * would, and the clone removed. The first run of a clone installs (npm ci), builds and creates its
 * PostgreSQL cluster, which is what a newcomer waits for.
 */
export async function measureCleanStart(options: {
  repository: string;
  hosting: HostingName;
  port: number;
  timeoutMs?: number;
  log?: (message: string) => void;
}): Promise<CleanStart> {
  const parent = await mkdtemp(join(tmpdir(), "imprint-clean-"));
  const clone = join(parent, "imprint");
  try {
    // As root the embedded PostgreSQL runs as "postgres", which must traverse the clone's parents.
    await chmod(parent, 0o755);
    await run("git", ["clone", "--quiet", options.repository, clone]);
    const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([name]) => !INHERITED_SETTING.test(name)));
    Object.assign(env, {
      IMPRINT_HOSTING: options.hosting,
      IMPRINT_PORT: String(options.port),
      LOG_FORMAT: "json",
      LOG_LEVEL: "warn",
      NO_COLOR: "1",
      // The Node running the benchmark (24) first, as a newcomer's PATH would have it.
      PATH: [dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter),
    });
    const started = Date.now();
    // Its own process group, so that stopping it reaches npm and the wrapper behind it at once.
    const child = spawn("npm", ["start"], { cwd: clone, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    let launcherAt: number | undefined;
    const ready = new Promise<number>((resolve, reject) => {
      const onLine = (line: string) => {
        lines.push(line);
        if (lines.length > 40) lines.shift();
        if (launcherAt === undefined && LAUNCHER_STARTED.test(line)) launcherAt = Date.now();
        if (READY.test(line)) resolve(Date.now());
      };
      createInterface({ input: child.stdout }).on("line", onLine);
      createInterface({ input: child.stderr }).on("line", onLine);
      child.once("exit", (code) => reject(new Error(`npm start exited with code ${code} before it was ready:\n${lines.join("\n")}`)));
      setTimeout(
        () => reject(new Error(`npm start was not ready within ${Math.round((options.timeoutMs ?? 900_000) / 1000)} s:\n${lines.join("\n")}`)),
        options.timeoutMs ?? 900_000,
      ).unref();
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const readyAt = await ready;
      return { totalMs: readyAt - started, installAndBuildMs: (launcherAt ?? readyAt) - started, startMs: readyAt - (launcherAt ?? started) };
    } finally {
      // The launcher (its pid is in stack.json once it is up) runs in a process group of its own.
      const stack = await readFile(join(clone, ".imprint", "stack.json"), "utf8").then(
        (text) => JSON.parse(text) as { pid?: number },
        () => ({ pid: undefined }),
      );
      const launcherPid = stack.pid;
      if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
      await exited;
      // The launcher stops everything in order before it exits.
      const deadline = Date.now() + 60_000;
      while (launcherPid && isAlive(launcherPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      if (launcherPid && isAlive(launcherPid)) process.kill(launcherPid, "SIGKILL");
    }
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}
