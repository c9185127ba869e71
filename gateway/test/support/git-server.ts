import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startGitHttpServer } from "@imprint/runtime/infrastructure";

/**
 * A smart-HTTP Git server on loopback for tests (the runtime's `startGitHttpServer`: `git
 * http-backend` behind a CGI bridge), serving the bare repositories of a temporary folder, push
 * enabled, with optional basic auth. Repositories are created and inspected with plain `git` commands.
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
  /** Holds every request from now on (with `pushesOnly`, only pushes) until `release()`; `reached` resolves when one is being held. */
  hold(options?: { pushesOnly?: boolean }): { reached: Promise<void>; release(): void };
  close(): Promise<void>;
}

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

export async function startGitServer(options: { auth?: { user: string; password: string } } = {}): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), "imprint-git-server-"));
  const repositories = join(root, "repos");
  mkdirSync(repositories);
  const server = await startGitHttpServer({ root: repositories, gitEnv: GIT_ENV, ...(options.auth ? { auth: options.auth } : {}) });
  const origin = server.origin;

  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const bare = (name: string) => join(repositories, `${name}.git`);

  return {
    origin,
    authorizations: server.authorizations,
    hold: (options) => server.hold(options),
    url: (name, credentials) =>
      credentials
        ? `${origin.replace("://", `://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@`)}/${name}.git`
        : `${origin}/${name}.git`,
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
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
