import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError } from "@imprint/runtime";
import type { GitRemote } from "../domain/remote.js";

/**
 * The `git` binary (Debian's /usr/bin/git, in the container image too), run in a temporary bare
 * repository that is always removed. Every process runs with no system or user configuration, no
 * prompts, only the http(s) transports, no redirects and no proxy, a time limit, and (for network
 * commands) the host pinned to the address the fetch guard checked (`http.curloptResolve`).
 * Credentials travel as an `http.extraHeader` in the environment, never on the command line, and
 * no output of git is answered or logged without removing the URL's credentials first (git only
 * ever sees the URL without them).
 */

export interface GitNetwork {
  remote: GitRemote;
  /** `host:port:address` from pinnedResolve. */
  resolve: string;
  allowHttp: boolean;
}

export interface RunOptions {
  input?: Buffer | string;
  network?: GitNetwork;
  /** Kills the process when the repository's object store grows past this many bytes. */
  maxObjectBytes?: number;
  /** Output bound (stdout), beyond which the process is killed. */
  maxOutputBytes?: number;
  /** Bound on NUL-terminated records of the output (`-z` listings), beyond which the process is killed. */
  maxOutputRecords?: number;
}

export class GitFailure extends Error {
  override readonly name = "GitFailure";
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
    readonly reason: "exit" | "timeout" | "too_large" | "output_too_large" | "not_started",
  ) {
    super(message);
  }
}

async function directoryBytes(path: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    try {
      total += (await stat(join(entry.parentPath, entry.name))).size;
    } catch {
      // Removed meanwhile (git renames its temporary packs).
    }
  }
  return total;
}

/** A temporary bare repository; `dispose` removes it (call it in a finally). */
export class GitWorkspace {
  private constructor(
    readonly dir: string,
    private readonly binary: string,
    private readonly deadline: number,
  ) {}

  /** A new temporary repository; `binary` is the git executable (GIT_BINARY). */
  static async open(binary: string, timeoutMs: number): Promise<GitWorkspace> {
    const dir = await mkdtemp(join(tmpdir(), "imprint-git-"));
    const workspace = new GitWorkspace(dir, binary, Date.now() + timeoutMs);
    try {
      await workspace.run(["init", "--quiet", "--bare", "repo.git"], { cwdRoot: true });
    } catch (error) {
      await workspace.dispose();
      throw networkError(error, { maxRepositoryBytes: 0, maxDurationMs: timeoutMs });
    }
    return workspace;
  }

  get repository(): string {
    return join(this.dir, "repo.git");
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private environment(network: GitNetwork | undefined): NodeJS.ProcessEnv {
    const config: [string, string][] = [
      ["core.askPass", ""],
      ["credential.helper", ""],
      ["http.followRedirects", "false"],
      ["http.proxy", ""],
      ["http.lowSpeedLimit", "1000"],
      ["http.lowSpeedTime", "30"],
      ["protocol.allow", "never"],
      ["protocol.https.allow", "always"],
      ["protocol.http.allow", network?.allowHttp ? "always" : "never"],
      ["submodule.recurse", "false"],
      ["fetch.recurseSubmodules", "false"],
      ["gc.auto", "0"],
      ["core.hooksPath", "/dev/null"],
      ["user.name", "Imprint"],
      ["user.email", "imprint@localhost"],
    ];
    if (network) {
      config.push(["http.curloptResolve", network.resolve]);
      if (network.remote.authorization) config.push(["http.extraHeader", `Authorization: ${network.remote.authorization}`]);
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.dir,
      LANG: "C",
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      GIT_ASKPASS: "",
      SSH_ASKPASS: "",
      GIT_ALLOW_PROTOCOL: network?.allowHttp ? "http:https" : "https",
      GIT_PROTOCOL_FROM_USER: "0",
      GIT_CONFIG_COUNT: String(config.length),
    };
    config.forEach(([key, value], index) => {
      env[`GIT_CONFIG_KEY_${index}`] = key;
      env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
    return env;
  }

  /** Runs git in the bare repository; answers stdout. Fails with GitFailure (stderr kept for mapping). */
  run(args: string[], options: RunOptions & { cwdRoot?: boolean } = {}): Promise<Buffer> {
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new GitFailure("git: time limit reached", "", null, "timeout"));
    return new Promise<Buffer>((resolve, reject) => {
      const child = spawn(this.binary, options.cwdRoot ? args : ["--git-dir", this.repository, ...args], {
        cwd: this.dir,
        env: this.environment(options.network),
        stdio: ["pipe", "pipe", "pipe"],
      });
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = "";
      let failure: GitFailure["reason"] | undefined;
      const kill = (reason: GitFailure["reason"]) => {
        failure ??= reason;
        child.kill("SIGKILL");
      };
      const timer = setTimeout(() => kill("timeout"), remaining);
      let watcher: NodeJS.Timeout | undefined;
      if (options.maxObjectBytes !== undefined) {
        const limit = options.maxObjectBytes;
        const objects = join(this.repository, "objects");
        let checking = false;
        watcher = setInterval(() => {
          if (checking) return;
          checking = true;
          void directoryBytes(objects).then((bytes) => {
            checking = false;
            if (bytes > limit) kill("too_large");
          });
        }, 50);
      }
      let records = 0;
      child.stdout.on("data", (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (options.maxOutputRecords !== undefined) for (let at = chunk.indexOf(0); at >= 0; at = chunk.indexOf(0, at + 1)) records += 1;
        if (options.maxOutputBytes !== undefined && stdoutBytes > options.maxOutputBytes) kill("output_too_large");
        else if (options.maxOutputRecords !== undefined && records > options.maxOutputRecords) kill("output_too_large");
        else stdout.push(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < 16_384) stderr += chunk.toString("utf8");
      });
      child.stdin.on("error", () => undefined);
      child.on("error", (error) => {
        clearTimeout(timer);
        if (watcher) clearInterval(watcher);
        reject(new GitFailure(`git could not be started: ${error.message}`, "", null, "not_started"));
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        if (watcher) clearInterval(watcher);
        if (failure) reject(new GitFailure(`git ${args[0]}: ${failure}`, stderr, code, failure));
        else if (code !== 0) reject(new GitFailure(`git ${args[0]} exited with ${code}`, stderr, code, "exit"));
        else resolve(Buffer.concat(stdout));
      });
      if (options.input !== undefined) child.stdin.end(options.input);
      else child.stdin.end();
    });
  }
}

/** What a caller may read of a failed network command: stderr's "fatal:" / "error:" lines, credentials removed. */
function gitMessage(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^(fatal|error|remote):/.test(line))
    .map((line) => line.replace(/\/\/[^/@\s]*@/g, "//"));
  return (lines.join(" ") || "git failed").slice(0, 300);
}

/** Maps a failed fetch, ls-remote or push to the answer (invalid_argument naming the field, or a limit). */
export function networkError(error: unknown, limits: { maxRepositoryBytes: number; maxDurationMs: number }): unknown {
  if (!(error instanceof GitFailure)) return error;
  switch (error.reason) {
    case "timeout":
      return AppError.invalidArgument(`url: the repository took longer than the limit of ${Math.round(limits.maxDurationMs / 1000)} s (GIT_MAX_DURATION_MS)`);
    case "too_large":
    case "output_too_large":
      return new AppError("payload_too_large", `repository: larger than the limit of ${limits.maxRepositoryBytes} bytes (GIT_MAX_REPOSITORY_BYTES)`);
    case "not_started":
      return new AppError("unavailable", "git: the git binary could not be started on the content service (install git, or set GIT_BINARY)");
    case "exit":
      break;
  }
  const stderr = error.stderr;
  if (/could not read Username|Authentication failed|HTTP 401|HTTP 403|403 Forbidden|401/i.test(stderr)) {
    return AppError.invalidArgument("url: the repository refused the credentials (give user and token in the URL: https://user:token@host/repo.git)");
  }
  if (/couldn't find remote ref|Remote branch .* not found|invalid refspec/i.test(stderr)) {
    return AppError.invalidArgument("ref: not found in the repository");
  }
  if (/HTTP 30\d|redirect/i.test(stderr))
    return AppError.invalidArgument("url: the repository answered with a redirect (redirects are not followed; give the final URL)");
  if (/not found|HTTP 404|does not appear to be a git repository|repository .* not found/i.test(stderr)) {
    return AppError.invalidArgument("url: no Git repository at this URL");
  }
  if (/Could not resolve host|Failed to connect|Connection refused|Couldn't connect|timed out|SSL|certificate/i.test(stderr)) {
    return AppError.invalidArgument(`url: the repository could not be reached (${gitMessage(stderr)})`);
  }
  return AppError.invalidArgument(`url: the repository could not be read (${gitMessage(stderr)})`);
}
