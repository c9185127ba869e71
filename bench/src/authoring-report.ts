import type { AuthoringBenchmarkSettings, AuthoringFigures } from "./authoring.js";

/** The authoring target of docs/benchmarks.md: a 50-change batch on a change request of a 10,000-page space. */
export const AUTHORING_TARGETS = { p99Ms: 300 } as const;

export interface AuthoringReport {
  settings: AuthoringBenchmarkSettings;
  figures: AuthoringFigures;
}

export function evaluateAuthoringTargets(figures: AuthoringFigures): { name: string; passed: boolean; detail: string }[] {
  if (figures.batches === 0) return [];
  return [
    {
      name: `authoring: ${figures.changesPerBatch}-change batch on a change request of a ${figures.pages}-page space, p99 < ${AUTHORING_TARGETS.p99Ms} ms`,
      passed: figures.p99Ms < AUTHORING_TARGETS.p99Ms,
      detail: `p99 ${figures.p99Ms.toFixed(0)} ms over ${figures.batches} batches`,
    },
  ];
}

/** The authoring section of the Markdown report. */
export function formatAuthoringReport(report: AuthoringReport): string {
  const { figures } = report;
  const lines = [
    "## Change request authoring",
    "",
    `A space of ${figures.pages} pages; \`POST …/change-requests/{n}/content\` with batches of ${figures.changesPerBatch} changes (20 inserts with links, 20 updates, 10 moves), one after the other on one change request, timed through the gateway (collaboration → content).`,
    "",
    "| batches | p50 | p99 | max |",
    "|---:|---:|---:|---:|",
    `| ${figures.batches} | ${figures.p50Ms.toFixed(0)} ms | ${figures.p99Ms.toFixed(0)} ms | ${figures.maxMs.toFixed(0)} ms |`,
  ];
  return `${lines.join("\n")}\n`;
}
