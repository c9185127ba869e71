import type { ContentBenchmarkSettings, ContentFigures } from "./content.js";

/** The content targets of docs/benchmarks.md. */
export const CONTENT_TARGETS = {
  /** Page by path through the gateway at 32 concurrent connections. */
  pageByPathMaxP99Ms: 20,
  /** Page by path p99 ÷ the organization read's p99, both at the same connections in the same run (issue 26). */
  pageByPathMaxP99RatioToOrgRead: 1.5,
  oneEditMaxRows: 20,
  /** Listing of the revision 100 commits ago: its p99 ÷ the head revision's, same route, same connections (issue 27). */
  oldRevisionListMaxP99RatioToHead: 1.5,
  duplicateMaxMs: 1_000,
} as const;

export interface ContentReport {
  settings: ContentBenchmarkSettings;
  figures: ContentFigures;
}

export function evaluateContentTargets(figures: ContentFigures): { name: string; passed: boolean; detail: string }[] {
  const failed = (result: ContentFigures["pageByPath"]) => result.non2xx + result.errors;
  const failedRequests = [
    figures.pageByPath,
    figures.pageByPathOneConnection,
    figures.listPages,
    ...(figures.history ? [figures.history.oldRevisionListPages, figures.history.headRevisionListPages] : []),
  ].reduce((sum, result) => sum + failed(result), 0);
  return [
    {
      name: `content: page by path p99 < ${CONTENT_TARGETS.pageByPathMaxP99Ms} ms`,
      passed: figures.pageByPath.p99Ms < CONTENT_TARGETS.pageByPathMaxP99Ms,
      detail: `p99 ${figures.pageByPath.p99Ms.toFixed(1)} ms`,
    },
    ...(figures.orgRead
      ? [
          {
            name: `content: page by path p99 ≤ ${CONTENT_TARGETS.pageByPathMaxP99RatioToOrgRead}× the organization read's, same connections`,
            passed: figures.pageByPath.p99Ms <= CONTENT_TARGETS.pageByPathMaxP99RatioToOrgRead * figures.orgRead.p99Ms,
            detail: `${figures.pageByPath.p99Ms.toFixed(1)} ms ÷ ${figures.orgRead.p99Ms.toFixed(1)} ms = ${(figures.pageByPath.p99Ms / figures.orgRead.p99Ms).toFixed(2)}×`,
          },
        ]
      : []),
    ...(figures.history
      ? [
          {
            name: `content: listing of the revision ${figures.history.commits} commits ago p99 ≤ ${CONTENT_TARGETS.oldRevisionListMaxP99RatioToHead}× the head revision's, same route and connections`,
            passed:
              figures.history.oldRevisionListPages.p99Ms <= CONTENT_TARGETS.oldRevisionListMaxP99RatioToHead * figures.history.headRevisionListPages.p99Ms,
            detail: `${figures.history.oldRevisionListPages.p99Ms.toFixed(1)} ms ÷ ${figures.history.headRevisionListPages.p99Ms.toFixed(1)} ms = ${(figures.history.oldRevisionListPages.p99Ms / figures.history.headRevisionListPages.p99Ms).toFixed(2)}×`,
          },
        ]
      : []),
    {
      name: `content: one-page edit < ${CONTENT_TARGETS.oneEditMaxRows} rows`,
      passed: figures.oneEditRows.total < CONTENT_TARGETS.oneEditMaxRows,
      detail: `${figures.oneEditRows.total} rows`,
    },
    {
      name: `content: duplicate < ${CONTENT_TARGETS.duplicateMaxMs} ms`,
      passed: figures.duplicateMs < CONTENT_TARGETS.duplicateMaxMs,
      detail: `${figures.duplicateMs.toFixed(0)} ms`,
    },
    {
      name: "content: no failed requests",
      passed: failedRequests === 0,
      detail: `${failedRequests} failed`,
    },
  ];
}

/** The content section of the Markdown report. */
export function formatContentReport(report: ContentReport): string {
  const { figures, settings } = report;
  const history = figures.history;
  const row = (route: string, result: ContentFigures["pageByPath"]) =>
    `| \`${route}\` | ${result.requestsPerSecond.toFixed(result.requestsPerSecond < 100 ? 1 : 0)} | ${result.p50Ms.toFixed(1)} | ${result.p99Ms.toFixed(1)} | ${result.maxMs.toFixed(1)} | ${result.non2xx} | ${result.errors} |`;
  const lines = [
    "## Content",
    "",
    `A space of ${figures.pages} pages built through the editing API in ${figures.seedSeconds.toFixed(1)} s; through the gateway, ${settings.connections} connections unless said otherwise, ${settings.durationSeconds} s measured after a ${settings.warmupSeconds} s warm-up; page by path cycles over 500 pages spread over the tree.`,
    "",
    "| route | req/s | p50 ms | p99 ms | max ms | non-2xx | errors |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row(`GET /v1/spaces/{id}/content/path/{pagePath}`, figures.pageByPath),
    row(`GET /v1/spaces/{id}/content/path/{pagePath} (1 connection)`, figures.pageByPathOneConnection),
    ...(figures.orgRead ? [row(`GET /v1/orgs/{id} (reference)`, figures.orgRead)] : []),
    row(`GET /v1/spaces/{id}/content/pages (${figures.pages} pages)`, figures.listPages),
    ...(history
      ? [
          row(`GET /v1/spaces/{id}/revisions/{revisionId}/pages (the revision ${history.commits} commits ago)`, history.oldRevisionListPages),
          row(`GET /v1/spaces/{id}/revisions/{revisionId}/pages (the head revision)`, history.headRevisionListPages),
        ]
      : []),
    "",
    "| figure | value |",
    "|---|---:|",
    `| rows written by a one-page edit | ${figures.oneEditRows.total} (${Object.entries(figures.oneEditRows.byTable)
      .map(([table, count]) => `${table} ${count}`)
      .join(", ")}) |`,
    `| duplicate of the ${figures.pages}-page space | ${figures.duplicateMs.toFixed(0)} ms |`,
    ...(figures.orgRead
      ? [
          `| page by path p99 ÷ organization read p99 (${settings.connections} connections) | ${(figures.pageByPath.p99Ms / figures.orgRead.p99Ms).toFixed(2)}× |`,
        ]
      : []),
    ...(history
      ? [
          `| ${history.commits} one-page commits after the edit | ${history.commitSeconds.toFixed(1)} s |`,
          `| revision ${history.commits} commits ago ÷ head revision, listing p99 (${settings.connections} connections) | ${(history.oldRevisionListPages.p99Ms / history.headRevisionListPages.p99Ms).toFixed(2)}× |`,
          `| revision ${history.commits} commits ago ÷ head revision, listing req/s | ${(history.oldRevisionListPages.requestsPerSecond / history.headRevisionListPages.requestsPerSecond).toFixed(2)}× |`,
        ]
      : []),
  ];
  return `${lines.join("\n")}\n`;
}
