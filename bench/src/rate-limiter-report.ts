import { measureCopies } from "./copies.js";
import type { LoadResult } from "./load.js";

/** One short load on one of the two gateways. */
export interface RateLimiterRound {
  limiter: "on" | "off";
  requestsPerSecond: number;
}

/**
 * What the rate limiter costs: the single-organization read through two gateways of one split
 * stack, the stack's own (limiter on, its limits raised out of reach, counts shared through NATS)
 * and one started beside it with RATE_LIMIT_ENABLED=false, loaded in alternating rounds.
 */
export interface RateLimiterReport {
  route: string;
  /** Through the gateway with the limiter on (all its rounds as one). */
  limiterOn: LoadResult;
  /** Through the gateway with the limiter off. */
  limiterOff: LoadResult;
  /** Each round's throughput, in the order they ran. */
  rounds: RateLimiterRound[];
}

/** The limiter costs at most this share of the route's throughput (issue "Run it in production"). */
export const MAX_LIMITER_COST = 0.05;

/** 1 − throughput with the limiter ÷ without: the share of throughput it costs (negative: within noise, faster). */
export function limiterCost(report: RateLimiterReport): number {
  return report.limiterOff.requestsPerSecond > 0 ? 1 - report.limiterOn.requestsPerSecond / report.limiterOff.requestsPerSecond : 1;
}

/**
 * The same load on both gateways in alternating rounds (off, on, on, off, …: measureCopies'
 * order), so whatever else loads the machine weighs on both alike.
 */
export async function measureRateLimiter(options: {
  onUrl: string;
  offUrl: string;
  path: string;
  route: string;
  token: string;
  connections: number;
  rounds: number;
  secondsPerRound: number;
  warmupSeconds: number;
  pids: Record<string, number>;
}): Promise<RateLimiterReport> {
  const measured = await measureCopies({ ...options, severalUrl: options.onUrl, oneUrl: options.offUrl });
  return {
    route: options.route,
    limiterOn: measured.severalCopies,
    limiterOff: measured.oneCopy,
    rounds: measured.rounds.map((round) => ({ limiter: round.copies === "several" ? "on" : "off", requestsPerSecond: round.requestsPerSecond })),
  };
}

export function evaluateRateLimiterTargets(report: RateLimiterReport): { name: string; passed: boolean; detail: string }[] {
  const cost = limiterCost(report);
  const failed = report.limiterOn.non2xx + report.limiterOn.errors;
  return [
    {
      name: `${report.route}, the rate limiter's cost: ≤ ${(MAX_LIMITER_COST * 100).toFixed(0)}% of throughput`,
      passed: cost <= MAX_LIMITER_COST && failed === 0,
      detail: `${(cost * 100).toFixed(1)}% (${report.limiterOn.requestsPerSecond.toFixed(0)} req/s on / ${report.limiterOff.requestsPerSecond.toFixed(0)} off)${failed ? `, ${failed} failed (429s?)` : ""}`,
    },
  ];
}

export function formatRateLimiterReport(report: RateLimiterReport): string {
  const row = (label: string, result: LoadResult) =>
    `| ${label} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms.toFixed(0)} | ${result.p99Ms.toFixed(0)} | ${result.non2xx + result.errors} |`;
  return [
    "## Rate limiter",
    "",
    `\`${report.route}\` through two gateways of one split stack: the stack's, whose limiter counts every request (its limits raised out of reach, counts shared through NATS), and one with \`RATE_LIMIT_ENABLED=false\`; the same load on each in alternating rounds.`,
    "",
    "| gateway | req/s | p50 ms | p99 ms | failed |",
    "|---|---:|---:|---:|---:|",
    row("limiter on", report.limiterOn),
    row("limiter off", report.limiterOff),
    "",
    `Cost: ${(limiterCost(report) * 100).toFixed(1)}% of throughput.`,
    "",
    `Rounds (req/s, in order): ${report.rounds.map((round) => `${round.limiter} ${round.requestsPerSecond.toFixed(0)}`).join(", ")}.`,
    "",
  ].join("\n");
}
