import type { LatencyFigures, SearchBenchmarkSettings, SearchFigures } from "./search.js";

/** The search targets of docs/benchmarks.md. */
export const SEARCH_TARGETS = {
  /** Mixed searches through the gateway over 100,000 indexed sections, one at a time. */
  maxP95Ms: 50,
} as const;

export interface SearchReport {
  settings: SearchBenchmarkSettings;
  figures: SearchFigures;
}

export function evaluateSearchTargets(figures: SearchFigures): { name: string; passed: boolean; detail: string }[] {
  const failed = figures.mixed.failed + figures.oneConnection.failed + Object.values(figures.byKind).reduce((sum, kind) => sum + kind.failed, 0);
  return [
    {
      name: `search: p95 < ${SEARCH_TARGETS.maxP95Ms} ms (${figures.sections} sections, mixed queries, 1 connection)`,
      passed: figures.oneConnection.p95Ms < SEARCH_TARGETS.maxP95Ms,
      detail: `p95 ${figures.oneConnection.p95Ms.toFixed(1)} ms (p50 ${figures.oneConnection.p50Ms.toFixed(1)} ms)`,
    },
    { name: "search: no failed requests", passed: failed === 0, detail: `${failed} failed` },
  ];
}

/** The search section of the Markdown report. */
export function formatSearchReport(report: SearchReport): string {
  const { figures, settings } = report;
  const row = (label: string, result: LatencyFigures) =>
    `| ${label} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms.toFixed(1)} | ${result.p95Ms.toFixed(1)} | ${result.p99Ms.toFixed(1)} | ${result.maxMs.toFixed(1)} | ${result.failed} |`;
  const lines = [
    "## Search",
    "",
    `A space of ${figures.pages} pages and ${figures.sections} indexed sections, written as one revision through the editing API in ${figures.writeSeconds.toFixed(1)} s and indexed ${figures.indexSeconds.toFixed(1)} s after its commit; searches through the gateway (\`GET /v1/spaces/{id}/search\`, and \`GET /v1/orgs/{id}/search\`), ${settings.durationSeconds} s per mixed run after a ${settings.warmupSeconds} s warm-up.`,
    "",
    "| searches | req/s | p50 ms | p95 ms | p99 ms | max ms | failed |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row(`mixed, ${settings.connections} connections`, figures.mixed),
    row("mixed, 1 connection", figures.oneConnection),
    ...Object.entries(figures.byKind).map(([kind, result]) => row(`${kind} (${(figures.matchesByKind[kind] ?? 0).toFixed(0)} matches), 1 connection`, result)),
    "",
    "| figure | value |",
    "|---|---:|",
    `| index time of a ${figures.pages}-page import (commit to searchable) | ${figures.indexSeconds.toFixed(1)} s |`,
  ];
  return `${lines.join("\n")}\n`;
}
