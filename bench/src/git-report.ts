import type { GitBenchmarkSettings, GitFigures } from "./git.js";

/** The Git sync targets of docs/benchmarks.md, for a 1,000-page repository. */
export const GIT_TARGETS = { pages: 1_000, importMs: 10_000, reimportMs: 2_000, exportMs: 10_000 } as const;

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
  ];
}

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
    `| import (\`POST …/git/import\`) | ${(figures.importMs / 1000).toFixed(2)} s |`,
    `| re-import after one page changed | ${(figures.reimportMs / 1000).toFixed(2)} s |`,
    `| export to an empty repository (\`POST …/git/export\`) | ${(figures.exportMs / 1000).toFixed(2)} s |`,
  ];
  return `${lines.join("\n")}\n`;
}
