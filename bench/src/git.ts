import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createIdentityClients } from "@imprint/runtime";
import { startGitHttpServer } from "@imprint/runtime/infrastructure";
import { gatewayPost } from "./editing.js";

/**
 * The Git sync figures of `npm run bench`: a repository of `pages` pages in GitBook's Git Sync
 * layout (SUMMARY.md with sections of 99 pages each, front matter, relative links between
 * neighbours, a few assets) served by `git http-backend` on loopback (the stack must allow private
 * fetches); `POST /v1/spaces/{id}/git/import` timed end to end, then again after one page changed
 * in the repository, then `POST …/git/export` of the same space into an empty repository.
 */

export interface GitBenchmarkSettings {
  pages: number;
}

export interface GitFigures {
  pages: number;
  importMs: number;
  reimportMs: number;
  exportMs: number;
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

/** 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

/** The repository's files: sections (folders with a README) of up to 99 pages each. */
function repositoryFiles(pages: number): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  const summary = ["# Table of contents", ""];
  let count = 0;
  for (let section = 0; count < pages; section++) {
    summary.push(`* [Section ${section}](section-${section}/README.md)`);
    files.set(
      `section-${section}/README.md`,
      `---\ndescription: Section ${section} of the benchmark.\n---\n\n# Section ${section}\n\n![Figure](../.gitbook/assets/figure-${section % 20}.png)\n`,
    );
    count++;
    for (let page = 0; page < 99 && count < pages; page++, count++) {
      summary.push(`  * [Page ${section}.${page}](section-${section}/page-${page}.md)`);
      const next = page < 98 ? `page-${page + 1}.md` : "README.md";
      const paragraphs = Array.from(
        { length: 6 },
        (_, index) => `Paragraph ${index} of page ${section}.${page}: some text about the topic, with **emphasis** and \`code\`.`,
      );
      files.set(
        `section-${section}/page-${page}.md`,
        `# Page ${section}.${page}\n\n${paragraphs.join("\n\n")}\n\nNext: [the next page](${next}). Up: [the section](README.md).\n`,
      );
    }
  }
  for (let index = 0; index < 20; index++) files.set(`.gitbook/assets/figure-${index}.png`, Buffer.concat([PNG, Buffer.from([index])]));
  files.set("SUMMARY.md", `${summary.join("\n")}\n`);
  files.set(".gitbook.yaml", "root: ./\n\nstructure:\n  readme: section-0/README.md\n  summary: SUMMARY.md\n");
  return files;
}

function commitFiles(bare: string, work: string, files: Map<string, string | Buffer>, message: string): void {
  for (const [path, content] of files) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(work, "add", "--all");
  git(work, "commit", "--quiet", "-m", message);
  git(work, "push", "--quiet", bare, "HEAD:refs/heads/main");
}

export async function runGitBenchmark(
  target: { gatewayUrl: string; identityGrpcAddress: string },
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
    commitFiles(source, work, repositoryFiles(settings.pages), "Benchmark docs");

    const url = `${server.origin}/docs.git`;
    const importMs = await timed(`/v1/spaces/${spaceId}/git/import`, { url, ref: "refs/heads/main" });
    log(`git: import of ${settings.pages} pages: ${importMs.toFixed(0)} ms`);

    commitFiles(source, work, new Map([["section-0/page-1.md", "# Page 0.1\n\nRewritten in Git.\n"]]), "One page changed");
    const reimportMs = await timed(`/v1/spaces/${spaceId}/git/import`, { url, ref: "refs/heads/main" });
    log(`git: re-import after one page changed: ${reimportMs.toFixed(0)} ms`);

    const exported = join(repositories, "export.git");
    git(repositories, "init", "--quiet", "--bare", "--initial-branch=main", exported);
    git(exported, "config", "http.receivepack", "true");
    const exportMs = await timed(`/v1/spaces/${spaceId}/git/export`, {
      url: `${server.origin}/export.git`,
      ref: "refs/heads/main",
      commitMessage: "Benchmark export",
    });
    log(`git: export of ${settings.pages} pages: ${exportMs.toFixed(0)} ms`);
    return { pages: settings.pages, importMs, reimportMs, exportMs };
  } finally {
    identity.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
