import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Debian's smart-HTTP Git CGI program. */
export const GIT_HTTP_BACKEND = "/usr/lib/git-core/git-http-backend";

/** A smart-HTTP Git server on loopback, for the tests and the benchmark of Git sync. */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Authorization headers received (to check that credentials reached the server). */
  authorizations: string[];
  /**
   * Holds every request from now on (with `pushesOnly`, only pushes: `git-receive-pack`) until
   * `release()`; `reached` resolves when one is being held.
   */
  hold(options?: { pushesOnly?: boolean }): { reached: Promise<void>; release(): void };
  close(): Promise<void>;
}

/**
 * Serves the bare repositories of `root` (push enabled where a repository's `http.receivepack` is
 * set) through `git http-backend` behind a small Node CGI bridge, with optional basic auth.
 * `gitEnv` is the environment git runs with (identity, no system or global config).
 */
export async function startGitHttpServer(options: {
  root: string;
  gitEnv: Record<string, string>;
  auth?: { user: string; password: string };
}): Promise<GitHttpServer> {
  const authorizations: string[] = [];
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString("base64")}` : undefined;
  let held: { gate: Promise<void>; arrived: () => void; pushesOnly: boolean } | undefined;

  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://git");
    if (request.headers.authorization) authorizations.push(request.headers.authorization);
    if (expected && request.headers.authorization !== expected) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="git"' });
      response.end();
      return;
    }
    const child = spawn(GIT_HTTP_BACKEND, [], {
      env: {
        ...options.gitEnv,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: options.root,
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
    // The CGI answer: headers (a `Status:` among them), a blank line, then the body as is.
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

  const server = createServer((request, response) => {
    // A push asks for `info/refs?service=git-receive-pack`, then posts to `git-receive-pack`.
    if (!held || (held.pushesOnly && !request.url?.includes("git-receive-pack"))) return serve(request, response);
    held.arrived();
    void held.gate.then(() => serve(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    hold(holdOptions = {}) {
      let release!: () => void;
      let arrived!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      held = { gate, arrived, pushesOnly: holdOptions.pushesOnly ?? false };
      return {
        reached,
        release: () => {
          held = undefined;
          release();
        },
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
