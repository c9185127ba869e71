import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * A smart-HTTP Git server on loopback for tests: `git http-backend` (Debian's, CGI) behind a small
 * Node bridge, serving the bare repositories of a temporary folder, push enabled, with optional
 * basic auth. Repositories are created and inspected with plain `git` commands.
 */
export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** http URL of a repository, with `user:password@` when given. */
  url(name: string, credentials?: { user: string; password: string }): string;
  /** Creates an empty bare repository (push enabled). */
  createRepository(name: string): string;
  /** Commits `files` (path → text or bytes; null deletes) on top of the branch and updates the bare repository; answers the commit oid. */
  commit(name: string, files: Record<string, string | Buffer | null>, options?: { message?: string; branch?: string }): string;
  /** Clones the repository's branch into a fresh folder (for inspecting an export). */
  clone(name: string, branch?: string): string;
  /** `git` in a folder, answering trimmed stdout. */
  git(cwd: string, ...args: string[]): string;
  /** Authorization headers the server received (to check credentials reached it). */
  authorizations: string[];
  /** Holds every request from now on until `release()`; `reached` resolves when one is being held. */
  hold(): { reached: Promise<void>; release(): void };
  close(): Promise<void>;
}

const BACKEND = "/usr/lib/git-core/git-http-backend";
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.com" };

export async function startGitServer(options: { auth?: { user: string; password: string } } = {}): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), "imprint-git-server-"));
  const repositories = join(root, "repos");
  mkdirSync(repositories);
  const authorizations: string[] = [];
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString("base64")}` : undefined;

  let held: { gate: Promise<void>; arrived: () => void } | undefined;
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://git");
    if (request.headers.authorization) authorizations.push(request.headers.authorization);
    if (expected && request.headers.authorization !== expected) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="git"' });
      response.end();
      return;
    }
    const child = spawn(BACKEND, [], {
      env: {
        ...GIT_ENV,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: repositories,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: request.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ""),
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        REMOTE_USER: options.auth?.user ?? "tester",
        REMOTE_ADDR: "127.0.0.1",
        ...(request.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(request.headers["content-encoding"]) } : {}),
        ...(request.headers["git-protocol"] ? { GIT_PROTOCOL: String(request.headers["git-protocol"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    request.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (headersSent) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      let end = head.indexOf("\r\n\r\n");
      let separator = 4;
      if (end < 0) {
        end = head.indexOf("\n\n");
        separator = 2;
      }
      if (end < 0) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString("utf8").split(/\r?\n/)) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + separator));
    });
    child.on("close", () => {
      if (!headersSent) response.writeHead(500);
      response.end();
    });
  };
  const server: Server = createServer((request, response) => {
    if (!held) return serve(request, response);
    held.arrived();
    void held.gate.then(() => serve(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const bare = (name: string) => join(repositories, `${name}.git`);

  return {
    origin,
    authorizations,
    hold() {
      let release!: () => void;
      let arrived!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      held = { gate, arrived };
      return {
        reached,
        release: () => {
          held = undefined;
          release();
        },
      };
    },
    url: (name, credentials) =>
      credentials ? `${origin.replace("://", `://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@`)}/${name}.git` : `${origin}/${name}.git`,
    createRepository(name) {
      git(repositories, "init", "--quiet", "--bare", "--initial-branch=main", bare(name));
      git(bare(name), "config", "http.receivepack", "true");
      return bare(name);
    },
    commit(name, files, commitOptions = {}) {
      const branch = commitOptions.branch ?? "main";
      const work = mkdtempSync(join(root, "work-"));
      try {
        git(work, "init", "--quiet", `--initial-branch=${branch}`);
        const hasBranch = git(bare(name), "branch", "--list", branch) !== "";
        if (hasBranch) {
          git(work, "fetch", "--quiet", bare(name), branch);
          git(work, "reset", "--quiet", "--hard", "FETCH_HEAD");
        }
        for (const [path, content] of Object.entries(files)) {
          const target = join(work, path);
          if (content === null) {
            rmSync(target, { force: true });
            continue;
          }
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, content);
        }
        git(work, "add", "--all");
        git(work, "commit", "--quiet", "--allow-empty", "-m", commitOptions.message ?? "Test commit");
        git(work, "push", "--quiet", bare(name), `HEAD:refs/heads/${branch}`);
        return git(work, "rev-parse", "HEAD");
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    clone(name, branch = "main") {
      const target = mkdtempSync(join(root, "clone-"));
      git(target, "clone", "--quiet", "--branch", branch, bare(name), ".");
      return target;
    },
    git,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
