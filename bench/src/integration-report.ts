import type { IntegrationBenchmarkSettings, IntegrationFigures } from "./integration.js";
import type { LoadResult } from "./load.js";
import { percentile } from "./stats.js";

/**
 * The integration targets of docs/benchmarks.md: the render of a small `@gitbook/runtime`
 * component at 16 connections, warm, p99 under 50 ms (its ratio to GET /v1/orgs/{id}'s p99 in the
 * same run is printed with it); one `revision.created` delivered to 100 installations within 2 s,
 * the worst of the run's revisions.
 */
export const INTEGRATION_TARGETS = {
  renderP99Ms: 50,
  /** The render's p99 ÷ GET /v1/orgs/{id}'s at the same connections in the same run (issue 26). */
  maxRenderP99RatioToReference: 2.0,
  fanOutMs: 2_000,
} as const;

export interface IntegrationReport {
  settings: IntegrationBenchmarkSettings;
  figures: IntegrationFigures;
}

/** The fan-out's worst and median over its revisions, with the median of each reference. */
export function fanOutSummary(figures: IntegrationFigures): {
  worstMs: number;
  medianMs: number;
  commitMedianMs: number;
  searchableMedianMs: number;
  recordedMedianMs: number;
} {
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const delivered = figures.rounds.map((round) => round.deliveredMs);
  return {
    worstMs: delivered.length ? Math.max(...delivered) : Number.POSITIVE_INFINITY,
    medianMs: median(delivered),
    commitMedianMs: median(figures.rounds.map((round) => round.commitMs)),
    searchableMedianMs: median(figures.rounds.map((round) => round.searchableMs)),
    recordedMedianMs: median(figures.rounds.map((round) => round.recordedMs)),
  };
}

const renderRatio = ({ render, reference }: IntegrationFigures) => (reference.p99Ms > 0 ? render.p99Ms / reference.p99Ms : Number.POSITIVE_INFINITY);

export function evaluateIntegrationTargets(figures: IntegrationFigures): { name: string; passed: boolean; detail: string }[] {
  const { render, reference } = figures;
  const fanOut = fanOutSummary(figures);
  return [
    {
      name: `integrations: render of a small component (POST …/render) at ${figures.connections} connections, warm, p99 < ${INTEGRATION_TARGETS.renderP99Ms} ms`,
      passed: render.non2xx === 0 && render.errors === 0 && render.p99Ms < INTEGRATION_TARGETS.renderP99Ms,
      detail: `p99 ${render.p99Ms} ms (GET /v1/orgs/{id} ${reference.p99Ms} ms, ${renderRatio(figures).toFixed(2)}×), ${render.requestsPerSecond.toFixed(0)} req/s, non-2xx ${render.non2xx}`,
    },
    {
      name: `integrations: render p99 ≤ ${INTEGRATION_TARGETS.maxRenderP99RatioToReference}× GET /v1/orgs/{id}'s at ${figures.connections} connections`,
      passed: render.non2xx === 0 && render.errors === 0 && renderRatio(figures) <= INTEGRATION_TARGETS.maxRenderP99RatioToReference,
      detail: `${render.p99Ms} ms ÷ ${reference.p99Ms} ms = ${renderRatio(figures).toFixed(2)}×`,
    },
    {
      name: `integrations: one revision.created delivered to ${figures.integrations} installations < ${INTEGRATION_TARGETS.fanOutMs} ms (worst of ${figures.rounds.length})`,
      passed: fanOut.worstMs < INTEGRATION_TARGETS.fanOutMs,
      detail: `worst ${fanOut.worstMs.toFixed(0)} ms, median ${fanOut.medianMs.toFixed(0)} ms (medians: deliveries recorded after ${fanOut.recordedMedianMs.toFixed(0)} ms, the same revision searchable after ${fanOut.searchableMedianMs.toFixed(0)} ms, its commit ${fanOut.commitMedianMs.toFixed(0)} ms)`,
    },
  ];
}

/** The integration section of the Markdown report. */
export function formatIntegrationReport(report: IntegrationReport): string {
  const { figures } = report;
  const fanOut = fanOutSummary(figures);
  const row = (route: string, result: LoadResult) =>
    `| ${route} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms} ms | ${result.p99Ms} ms | ${result.non2xx} |`;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const worst = (figure: "commitMs" | "searchableMs" | "recordedMs") => Math.max(...figures.rounds.map((round) => round[figure]));
  const lines = [
    "## Integrations",
    "",
    `The compatibility integration (a \`@gitbook/runtime\` counter block, ${figures.scriptBytes} bytes bundled) published, installed and configured through the REST API; \`POST /v1/integrations/{name}/render\` of its counter with an action (warm) against the reference \`GET /v1/orgs/{id}\`, both at ${figures.connections} connections in the same run.`,
    "",
    "| route | req/s | p50 | p99 | non-2xx |",
    "|---|---:|---:|---:|---:|",
    row("`GET /v1/orgs/{id}` (reference)", figures.reference),
    row("`POST …/render`", figures.render),
    "",
    ...(figures.compatSetup.failed
      ? [
          `**${figures.compatSetup.failed} of the integration's ${figures.compatSetup.delivered + figures.compatSetup.failed} \`installation_setup\` events failed**, the first: ${figures.compatSetup.firstFailure?.replace(/\s+/g, " ").slice(0, 400) ?? "?"}`,
          "",
        ]
      : []),
    "| ratio | value |",
    "|---|---:|",
    `| render ÷ reference, p99 | ${renderRatio(figures).toFixed(2)}× |`,
    `| render ÷ reference, req/s | ${(figures.render.requestsPerSecond / figures.reference.requestsPerSecond).toFixed(2)}× |`,
    "",
    `${figures.integrations} integrations (scope \`space:content:read\`, a script answering OK) installed on an organization and on one of its spaces (${figures.setupSeconds.toFixed(1)} s to publish, install and deliver their setup events), then ${figures.rounds.length} one-page commits to that space, one after the other; each timed from the commit's answer until every integration's \`space_content_updated\` of that revision was delivered; with, for the same revision, when search (another consumer of the same \`revision.created\`) found the page and when integration's consumer had recorded the last delivery.`,
    "",
    `| revision | commit | searchable (search's consumer) | deliveries recorded (integration's consumer) | delivered to all ${figures.integrations} |`,
    "|---|---:|---:|---:|---:|",
    ...figures.rounds.map(
      (round, index) => `| ${index + 1} | ${ms(round.commitMs)} | ${ms(round.searchableMs)} | ${ms(round.recordedMs)} | ${ms(round.deliveredMs)} |`,
    ),
    `| median | ${ms(fanOut.commitMedianMs)} | ${ms(fanOut.searchableMedianMs)} | ${ms(fanOut.recordedMedianMs)} | ${ms(fanOut.medianMs)} |`,
    `| worst | ${ms(worst("commitMs"))} | ${ms(worst("searchableMs"))} | ${ms(worst("recordedMs"))} | ${ms(fanOut.worstMs)} |`,
  ];
  return `${lines.join("\n")}\n`;
}
