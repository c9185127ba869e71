import type { GitBenchmarkSettings, GitFigures, GitSyncLatency } from "./git.js";

/** The Git sync targets of docs/benchmarks.md, for a 1,000-page repository (issue 29: both Git Sync latencies p99 < 5 s). */
export const GIT_TARGETS = {
  pages: 1_000,
  importMs: 10_000,
  reimportMs: 2_000,
  exportMs: 10_000,
  pushToVisibleP99Ms: 5_000,
  mergeToCommitP99Ms: 5_000,
} as const;

export interface GitReport {
  settings: GitBenchmarkSettings;
  figures: GitFigures;
}

export function evaluateGitTargets(figures: GitFigures): { name: string; passed: boolean; detail: string }[] {
  if (figures.pages !== GIT_TARGETS.pages) return [];
  const check = (name: string, ms: number, max: number) => ({
    name: `git: ${name} < ${max / 1000} s`,
    passed: ms < max,
    detail: `${(ms / 1000).toFixed(2)} s`,
  });
  return [
    check(`import of a ${GIT_TARGETS.pages}-page repository`, figures.importMs, GIT_TARGETS.importMs),
    check("re-import after one page changed", figures.reimportMs, GIT_TARGETS.reimportMs),
    check(`export of the ${GIT_TARGETS.pages} pages`, figures.exportMs, GIT_TARGETS.exportMs),
    check(
      `Git Sync push to visible in the reader (one page), p99 of ${figures.pushToVisible.rounds}`,
      figures.pushToVisible.p99Ms,
      GIT_TARGETS.pushToVisibleP99Ms,
    ),
    check(`Git Sync merge to commit in the repository, p99 of ${figures.mergeToCommit.rounds}`, figures.mergeToCommit.p99Ms, GIT_TARGETS.mergeToCommitP99Ms),
  ];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const latencyRow = (name: string, figure: GitSyncLatency, targetMs: number) =>
  `| ${name} | ${figure.rounds} | ${seconds(figure.p50Ms)} | ${seconds(figure.p99Ms)} | ${seconds(figure.maxMs)} | p99 < ${targetMs / 1000} s: ${figure.p99Ms < targetMs ? "met" : "**missed**"} |`;

/** The Git section of the Markdown report. */
export function formatGitReport(report: GitReport): string {
  const { figures } = report;
  const lines = [
    "## Git sync",
    "",
    `A repository of ${figures.pages} pages in GitBook's Git Sync layout served by \`git http-backend\` on loopback; each call timed end to end through the gateway.`,
    "",
    "| operation | time |",
    "|---|---:|",
    `| import (\`POST …/git/import\`) | ${seconds(figures.importMs)} |`,
    `| re-import after one page changed | ${seconds(figures.reimportMs)} |`,
    `| export to an empty repository (\`POST …/git/export\`) | ${seconds(figures.exportMs)} |`,
    "",
    "Git Sync both ways, the same space connected to the repository it was exported to (`PUT …/git/sync`) and published: a one-page push announced by GitHub's signed webhook, timed until the published page's HTML shows it; a change request editing one page, merged through the API, timed from the merge's answer until the repository's ref holds the change.",
    "",
    "| figure | rounds | p50 | p99 | max | target |",
    "|---|---:|---:|---:|---:|---|",
    latencyRow("push to visible in the reader", figures.pushToVisible, GIT_TARGETS.pushToVisibleP99Ms),
    latencyRow("merge to commit in the repository", figures.mergeToCommit, GIT_TARGETS.mergeToCommitP99Ms),
  ];
  return `${lines.join("\n")}\n`;
}
