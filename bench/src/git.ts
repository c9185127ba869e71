import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createIdentityClients } from "@imprint/runtime";
import { gitSyncLayoutFiles, startGitHttpServer } from "@imprint/runtime/infrastructure";
import { gatewayPost } from "./editing.js";
import { percentile } from "./stats.js";

/**
 * The Git sync figures of `npm run bench`: a repository of `pages` pages in GitBook's Git Sync
 * layout (SUMMARY.md with sections of 99 pages each, front matter, relative links between
 * neighbours, a few assets) served by `git http-backend` on loopback (the stack must allow private
 * fetches); `POST /v1/spaces/{id}/git/import` timed end to end, then again after one page changed
 * in the repository, then `POST …/git/export` of the same space into an empty repository. Then
 * Git Sync both ways on that space, connected to the repository it was exported to and published
 * as a site: `rounds` one-page pushes announced by a signed webhook, each timed until the reader
 * shows it (push to visible), and `rounds` change requests merged through the API, each timed
 * from the merge's answer until the repository's ref holds the change (merge to commit).
 */

export interface GitBenchmarkSettings {
  pages: number;
  /** Rounds of each Git Sync figure (push to visible, merge to commit). */
  rounds: number;
}

/** One latency figure over its rounds. */
export interface GitSyncLatency {
  rounds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface GitFigures {
  pages: number;
  importMs: number;
  reimportMs: number;
  exportMs: number;
  /** From a one-page push landing in the repository (then its signed webhook) until the published page's HTML shows it. */
  pushToVisible: GitSyncLatency;
  /** From a change request's merge answering until the repository's ref holds a commit with its change. */
  mergeToCommit: GitSyncLatency;
}

type Log = (message: string) => void;

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" }).trim();

function commitFiles(bare: string, work: string, files: Map<string, string | Buffer>, message: string): void {
  for (const [path, content] of files) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(work, "add", "--all");
  git(work, "commit", "--quiet", "-m", message);
  git(work, "push", "--quiet", bare, "HEAD:refs/heads/main");
}

/** A gateway call as `token`'s user (none for the webhook): the JSON answer ({} for a 204); an answer of 300 or more throws with its body. */
function gatewayCall(gatewayUrl: string, token: string | undefined) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: typeof body === "string" || body === undefined ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
  };
}

/** Polls `probe` (every 20 ms, the figures' resolution) until it answers true; throws naming `what` after `timeoutMs`. */
async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await Promise.resolve(probe()).catch(() => false))) {
    if (performance.now() > deadline) throw new Error(`git: ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function latency(timings: number[]): GitSyncLatency {
  const sorted = [...timings].sort((a, b) => a - b);
  return { rounds: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? 0 };
}

const describeLatency = (figure: GitSyncLatency) => `p50 ${figure.p50Ms.toFixed(0)} ms, p99 ${figure.p99Ms.toFixed(0)} ms, max ${figure.maxMs.toFixed(0)} ms`;

interface RestPage {
  id: string;
  path?: string;
  git?: { path: string };
  pages?: RestPage[];
}
const flatten = (pages: RestPage[]): RestPage[] => pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);

export async function runGitBenchmark(
  target: { gatewayUrl: string; identityGrpcAddress: string; readerUrl: string },
  settings: GitBenchmarkSettings,
  log: Log,
): Promise<GitFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const root = mkdtempSync(join(tmpdir(), "imprint-bench-git-"));
  const repositories = join(root, "repos");
  mkdirSync(repositories);
  const server = await startGitHttpServer({ root: repositories, gitEnv: GIT_ENV });
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Git Benchmark",
      ownerEmail: "bench-git@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const post = gatewayPost(target.gatewayUrl, organization.token, 300_000);
    const call = gatewayCall(target.gatewayUrl, organization.token);
    const timed = async (path: string, body: unknown) => {
      const started = performance.now();
      await post(path, body);
      return performance.now() - started;
    };
    const spaceId = (await post(`/v1/orgs/${organization.organizationId}/spaces`, { title: "Git space" })).id as string;

    const source = join(repositories, "docs.git");
    git(repositories, "init", "--quiet", "--bare", "--initial-branch=main", source);
    const work = join(root, "work");
    mkdirSync(work);
    git(work, "init", "--quiet", "--initial-branch=main");
    log(`git: writing a repository of ${settings.pages} pages`);
    commitFiles(source, work, gitSyncLayoutFiles(settings.pages), "Benchmark docs");

    const url = `${server.origin}/docs.git`;
    const importMs = await timed(`/v1/spaces/${spaceId}/git/import`, { url, ref: "refs/heads/main" });
    log(`git: import of ${settings.pages} pages: ${importMs.toFixed(0)} ms`);

    commitFiles(source, work, new Map([["section-0/page-1.md", "# Page 0.1\n\nRewritten in Git.\n"]]), "One page changed");
    const reimportMs = await timed(`/v1/spaces/${spaceId}/git/import`, { url, ref: "refs/heads/main" });
    log(`git: re-import after one page changed: ${reimportMs.toFixed(0)} ms`);

    const exported = join(repositories, "export.git");
    git(repositories, "init", "--quiet", "--bare", "--initial-branch=main", exported);
    git(exported, "config", "http.receivepack", "true");
    const exportUrl = `${server.origin}/export.git`;
    const exportMs = await timed(`/v1/spaces/${spaceId}/git/export`, { url: exportUrl, ref: "refs/heads/main", commitMessage: "Benchmark export" });
    log(`git: export of ${settings.pages} pages: ${exportMs.toFixed(0)} ms`);

    // Git Sync both ways: the space connected to the repository it was just exported to (the
    // remote of its last sync, so nothing needs importing first), and published.
    const connection = await call("PUT", `/v1/spaces/${spaceId}/git/sync`, { url: exportUrl, ref: "main" });
    const secret = (connection.webhook as { secret: string }).secret;
    const site = await post(`/v1/orgs/${organization.organizationId}/sites`, { title: "Git benchmark", spaces: [spaceId] });
    const published = (await post(`/v1/orgs/${organization.organizationId}/sites/${String(site.id)}/publish`)).urls as { published?: string } | undefined;
    if (!published?.published?.startsWith(`${target.readerUrl}/`))
      throw new Error(`git: the site is published at ${published?.published}, not on the stack's reader`);
    const base = published.published.endsWith("/") ? published.published : `${published.published}/`;
    const pages = flatten(((await call("GET", `/v1/spaces/${spaceId}/content/pages`)).pages as RestPage[]) ?? []);
    const pageOf = (file: string) => {
      const page = pages.find((candidate) => candidate.git?.path === file);
      if (!page?.path) throw new Error(`git: no page of ${file} in the space`);
      return page;
    };
    const pushedPage = pageOf("section-0/page-2.md");
    const readerPage = new URL(pushedPage.path!, base).href;
    const readerShows = async (text: string) => {
      const response = await fetch(readerPage, { headers: { accept: "text/html" }, signal: AbortSignal.timeout(10_000) });
      return response.status === 200 && (await response.text()).includes(text);
    };
    await until("the published page was not readable", () => readerShows("Page 0.2"));

    // Push to visible: a one-page commit pushed, GitHub's signed push webhook, the reader polled.
    const clone = join(root, "clone");
    git(root, "clone", "--quiet", "--branch", "main", exported, clone);
    const webhook = gatewayCall(target.gatewayUrl, undefined);
    const pushTimings: number[] = [];
    log(`git: ${settings.rounds} one-page pushes, each announced by a signed webhook, timed until the reader shows them`);
    for (let round = 1; round <= settings.rounds; round++) {
      const text = `Pushed in round ${round}.`;
      const before = git(clone, "rev-parse", "HEAD");
      writeFileSync(join(clone, "section-0/page-2.md"), `# Page 0.2\n\n${text}\n`);
      git(clone, "commit", "--quiet", "--all", "-m", `Push round ${round}`);
      git(clone, "push", "--quiet", exported, "HEAD:refs/heads/main");
      const started = performance.now();
      const after = git(clone, "rev-parse", "HEAD");
      const body = JSON.stringify({ ref: "refs/heads/main", before, after, repository: { full_name: "bench/docs" } });
      const answer = await webhook("POST", `/v1/spaces/${spaceId}/git/sync/webhook`, body, {
        "content-type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": randomUUID(),
        "X-Hub-Signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
      });
      if (answer.queued !== true) throw new Error(`git: the webhook of round ${round} queued nothing: ${JSON.stringify(answer)}`);
      await until(`round ${round}'s push was not visible in the reader`, () => readerShows(text));
      pushTimings.push(performance.now() - started);
    }
    const pushToVisible = latency(pushTimings);
    log(`         ${describeLatency(pushToVisible)}`);

    // Merge to commit: a change request editing one page through the API, merged, the bare repository read.
    const mergedPage = pageOf("section-0/page-3.md");
    const mergeTimings: number[] = [];
    log(`git: ${settings.rounds} change requests merged, each timed until the repository's ref holds the change`);
    for (let round = 1; round <= settings.rounds; round++) {
      const text = `Merged in round ${round}.`;
      const changeRequest = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: `Merge round ${round}` });
      const number = String(changeRequest.number);
      await post(`/v1/spaces/${spaceId}/change-requests/${number}/content?compat=false`, {
        changes: [{ operation: "update_page", page: mergedPage.id, document: { markdown: text } }],
      });
      await post(`/v1/spaces/${spaceId}/change-requests/${number}/merge`);
      const started = performance.now();
      await until(`round ${round}'s merge did not reach the repository`, () => git(exported, "show", "refs/heads/main:section-0/page-3.md").includes(text));
      mergeTimings.push(performance.now() - started);
    }
    const mergeToCommit = latency(mergeTimings);
    log(`         ${describeLatency(mergeToCommit)}`);
    return { pages: settings.pages, importMs, reimportMs, exportMs, pushToVisible, mergeToCommit };
  } finally {
    identity.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
