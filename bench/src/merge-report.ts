import type { MergeBenchmarkSettings, MergeFigures } from "./merge.js";

/** The merge target of docs/benchmarks.md: a change request touching 1,000 pages of a 10,000-page space. */
export const MERGE_TARGETS = { pages: 1_000, maxMs: 1_000 } as const;

export interface MergeReport {
  settings: MergeBenchmarkSettings;
  figures: MergeFigures;
}

export function evaluateMergeTargets(figures: MergeFigures): { name: string; passed: boolean; detail: string }[] {
  const run = figures.runs.find((candidate) => candidate.pages === MERGE_TARGETS.pages && !candidate.bothSides);
  if (!run) return [];
  return [
    {
      name: `merge: ${MERGE_TARGETS.pages} pages of a ${figures.pages}-page space < ${MERGE_TARGETS.maxMs} ms`,
      passed: run.mergeMs < MERGE_TARGETS.maxMs,
      detail: `${run.mergeMs.toFixed(0)} ms`,
    },
  ];
}

/** The merge section of the Markdown report. */
export function formatMergeReport(report: MergeReport): string {
  const lines = [
    "## Change request merge",
    "",
    `A space of ${report.figures.pages} pages; each change request edits pages spread over the tree while the main content moves on, then \`POST …/change-requests/{n}/merge\` is timed through the gateway (collaboration → content, three-way merge).`,
    "",
    "| pages in the change request | main edited the same pages (text merged) | merge |",
    "|---:|---|---:|",
    ...report.figures.runs.map((run) => `| ${run.pages} | ${run.bothSides ? "yes" : "no"} | ${run.mergeMs.toFixed(0)} ms |`),
  ];
  return `${lines.join("\n")}\n`;
}
