import type { PublishingBenchmarkSettings, PublishingFigures } from "./publishing.js";

/**
 * The publishing target of docs/benchmarks.md: GET …/published of a 50 × 4 site at 32 connections,
 * p99 under 20 ms, or, on a machine slower than the one the target was set on, within 1.5× the
 * p99 of GET /v1/orgs/{id} measured in the same run.
 */
export const PUBLISHING_TARGETS = { p99Ms: 20, p99RatioToReference: 1.5 } as const;

export interface PublishingReport {
  settings: PublishingBenchmarkSettings;
  figures: PublishingFigures;
}

export function evaluatePublishingTargets(figures: PublishingFigures): { name: string; passed: boolean; detail: string }[] {
  const { published, reference } = figures;
  const ratio = reference.p99Ms > 0 ? published.p99Ms / reference.p99Ms : Number.POSITIVE_INFINITY;
  return [
    {
      name: `publishing: GET …/published of ${figures.sections} sections × ${figures.siteSpaces / figures.sections} site-spaces at ${figures.connections} connections, p99 < ${PUBLISHING_TARGETS.p99Ms} ms or ≤ ${PUBLISHING_TARGETS.p99RatioToReference}× GET /v1/orgs/{id}'s`,
      passed:
        published.non2xx === 0 && published.errors === 0 && (published.p99Ms < PUBLISHING_TARGETS.p99Ms || ratio <= PUBLISHING_TARGETS.p99RatioToReference),
      detail: `p99 ${published.p99Ms} ms (reference ${reference.p99Ms} ms, ${ratio.toFixed(2)}×), ${published.requestsPerSecond.toFixed(0)} req/s, non-2xx ${published.non2xx}`,
    },
  ];
}

/** The publishing section of the Markdown report. */
export function formatPublishingReport(report: PublishingReport): string {
  const { figures } = report;
  const row = (route: string, result: PublishingFigures["published"]) =>
    `| ${route} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms} ms | ${result.p99Ms} ms | ${result.non2xx} |`;
  const lines = [
    "## Published site",
    "",
    `A site of ${figures.sections} sections with ${figures.siteSpaces / figures.sections} site-spaces each, built through the REST API; \`GET …/sites/{siteId}/published\` (the site, its whole structure, its customizations) against the reference \`GET /v1/orgs/{id}\`, both at ${figures.connections} connections in the same run.`,
    "",
    "| route | req/s | p50 | p99 | non-2xx |",
    "|---|---:|---:|---:|---:|",
    row("`GET /v1/orgs/{id}` (reference)", figures.reference),
    row("`GET …/published`", figures.published),
  ];
  return `${lines.join("\n")}\n`;
}
