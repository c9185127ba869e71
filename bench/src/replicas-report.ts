import type { CopiesRound } from "./copies.js";
import type { LoadResult } from "./load.js";

/**
 * Split hosting with two copies of identity against one: the single-organization read through the
 * gateway, whose every request asks identity. One stack with two copies and two gateways (one
 * balancing over both copies, one calling the first only), loaded in alternating rounds.
 */
export interface ReplicasReport {
  /** The target run in several copies, and how many. */
  target: string;
  copies: number;
  route: string;
  /** The route through the gateway that calls one copy of `target` (all its rounds as one). */
  oneCopy: LoadResult;
  /** The route through the gateway that balances over the `copies` copies. */
  severalCopies: LoadResult;
  /** Each round's throughput, in the order they ran. */
  rounds?: CopiesRound[];
  /** Where the cores went under each load (CPU seconds per process, warm-up included). */
  oneCopyCpuSeconds?: Record<string, number>;
  severalCopiesCpuSeconds?: Record<string, number>;
}

/** Throughput with the copies ÷ with one copy: at least this on 2 cores (issue "More than one of everything"). */
export const MIN_COPIES_RATIO = 1.0;

export function copiesRatio(report: ReplicasReport): number {
  return report.oneCopy.requestsPerSecond > 0 ? report.severalCopies.requestsPerSecond / report.oneCopy.requestsPerSecond : 0;
}

export function evaluateReplicasTargets(report: ReplicasReport): { name: string; passed: boolean; detail: string }[] {
  const ratio = copiesRatio(report);
  return [
    {
      name: `${report.route}, ${report.copies} copies of ${report.target} ÷ one: ≥ ${MIN_COPIES_RATIO.toFixed(1)}`,
      passed: ratio >= MIN_COPIES_RATIO && report.severalCopies.non2xx + report.severalCopies.errors === 0,
      detail: `${ratio.toFixed(2)}× (${report.severalCopies.requestsPerSecond.toFixed(0)} / ${report.oneCopy.requestsPerSecond.toFixed(0)} req/s)`,
    },
  ];
}

export function formatReplicasReport(report: ReplicasReport): string {
  const row = (label: string, result: LoadResult) =>
    `| ${label} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms.toFixed(0)} | ${result.p99Ms.toFixed(0)} | ${result.non2xx + result.errors} |`;
  return [
    `## Copies: split hosting, ${report.copies} copies of ${report.target}`,
    "",
    `\`${report.route}\` through a gateway (each request asks ${report.target}): one stack with ${report.copies} copies of ${report.target} and two gateways, one calling the first copy only, one balancing over all; the same load on each in alternating rounds.`,
    "",
    "| stack | req/s | p50 ms | p99 ms | failed |",
    "|---|---:|---:|---:|---:|",
    row(`one copy of ${report.target}`, report.oneCopy),
    row(`${report.copies} copies of ${report.target}`, report.severalCopies),
    "",
    `Ratio: ${copiesRatio(report).toFixed(2)}×.`,
    "",
    ...(report.rounds?.length
      ? [
          `Rounds (req/s, in order): ${report.rounds.map((round) => `${round.copies === "one" ? "one" : report.copies} ${round.requestsPerSecond.toFixed(0)}`).join(", ")}.`,
          "",
        ]
      : []),
    ...cpuTable(report),
  ].join("\n");
}

/** CPU seconds per process under each load: which process the cores were busy with. */
function cpuTable(report: ReplicasReport): string[] {
  const one = report.oneCopyCpuSeconds;
  const several = report.severalCopiesCpuSeconds;
  if (!one || !several) return [];
  const names = [...new Set([...Object.keys(one), ...Object.keys(several)])];
  const cell = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(1));
  return [
    "CPU seconds used during each configuration's rounds, per process:",
    "",
    `| process | one copy of ${report.target} | ${report.copies} copies of ${report.target} |`,
    "|---|---:|---:|",
    ...names.map((name) => `| ${name} | ${cell(one[name])} | ${cell(several[name])} |`),
    "",
  ];
}
