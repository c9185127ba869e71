import type { EventLagFigures, EventLagSettings } from "./event-lag.js";

/** The event-lag target of docs/benchmarks.md. */
export const EVENT_LAG_TARGETS = { maxP99Ms: 1_000 } as const;

export interface EventLagReport {
  settings: EventLagSettings;
  figures: EventLagFigures;
}

export function evaluateEventLagTargets(figures: EventLagFigures): { name: string; passed: boolean; detail: string }[] {
  return [
    {
      name: `event lag: a one-page commit searchable within ${EVENT_LAG_TARGETS.maxP99Ms} ms p99 while a ${figures.pages}-page import is indexed`,
      passed: figures.p99Ms <= EVENT_LAG_TARGETS.maxP99Ms,
      detail: `p99 ${figures.p99Ms.toFixed(0)} ms over ${figures.commits} commits`,
    },
  ];
}

export function formatEventLagReport(report: EventLagReport): string {
  const { figures } = report;
  const lines = [
    "## Event lag under a neighbour's bulk work",
    "",
    `${figures.commits} one-page commits in one organization's space, one after the other, while another organization's ${figures.pages}-page import (one commit) is indexed; each timed from its commit to the first search through the gateway that finds it.`,
    "",
    "| figure | value |",
    "|---|---:|",
    `| commit to searchable, p50 | ${figures.p50Ms.toFixed(0)} ms |`,
    `| commit to searchable, p99 | ${figures.p99Ms.toFixed(0)} ms |`,
    `| commits found while the import was still being indexed | ${figures.commitsDuringBulk} of ${figures.commits} |`,
    `| the import's index time (commit to searchable) | ${figures.bulkIndexSeconds.toFixed(1)} s |`,
    `| each commit's lag, in order (ms) | ${figures.lagsMs.map((lag) => lag.toFixed(0)).join(", ")} |`,
  ];
  return `${lines.join("\n")}\n`;
}
