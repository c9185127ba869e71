import type { LoadResult } from "./load.js";

/** How the stack was hosted: every target in one Node process, or one process per target. */
export type HostingName = "one-process" | "split";

/** `npm start` in a fresh `git clone` of the repository, until it printed that it is ready. */
export interface CleanStart {
  /** From the command to the ready line: install, build, PostgreSQL and NATS, every target. */
  totalMs: number;
  /** The part before the launcher starts anything (npm ci and the build). */
  installAndBuildMs: number;
  /** From the launcher's first line to the ready line (first start: initdb, migrations). */
  startMs: number;
}

/** One hosting of the same stack, measured the same way. */
export interface HostingMeasurement {
  hosting: HostingName;
  /** Resident set size (VmRSS) of each Imprint process a few seconds after the stack was ready. */
  idleRssBytes: Record<string, number | null>;
  /** The single-organization read and the members page through the gateway of this hosting. */
  routes: { route: string; result: LoadResult; cpuSeconds?: Record<string, number> }[];
  /** Peak resident set size (VmHWM) of each Imprint process once those routes were loaded. */
  peakRssBytes: Record<string, number | null>;
  cleanStart?: CleanStart;
}

export interface HostingReport {
  hostings: HostingMeasurement[];
  /** The one-process baseline on the same routes, measured in the same run. */
  baseline: { route: string; result: LoadResult }[];
  /** The floor (node:http + pg) on the single-organization read, measured in the same run. */
  floor?: { route: string; result: LoadResult };
}

/** The hosting targets of docs/benchmarks.md, checked on every run. */
export const HOSTING_TARGETS = {
  /** Sum of the peak RSS of every Imprint process under the routes' load, one-process hosting (issue 26). */
  maxOneProcessPeakRssBytes: 350 * 1024 * 1024,
  /** Peak RSS of each process of the split hosting under the routes' load (issue 26). */
  maxSplitProcessPeakRssBytes: 256 * 1024 * 1024,
  /** Single-organization read, ours divided by the baseline's throughput (issue 26). */
  minRatioToBaseline: { "one-process": 1.0, split: 1.1 } as Record<HostingName, number>,
  /** The members page, ours divided by the baseline's throughput (issue 26). */
  minMembersRatioToBaseline: { "one-process": 0.9, split: 1.1 } as Record<HostingName, number>,
  /** Single-organization read, split hosting, divided by the floor's throughput. */
  minSplitRatioToFloor: 0.5,
} as const;

const megabytes = (bytes: number | null) => (bytes === null ? "n/a" : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Sum of the values, or null when one is unknown. */
export function totalBytes(values: Record<string, number | null>): number | null {
  let total = 0;
  for (const value of Object.values(values)) {
    if (value === null) return null;
    total += value;
  }
  return total;
}

function ratio(hosting: HostingMeasurement, baseline: HostingReport["baseline"], index: number): number | null {
  const ours = hosting.routes[index]?.result.requestsPerSecond;
  const theirs = baseline[index]?.result.requestsPerSecond;
  return ours === undefined || !theirs ? null : ours / theirs;
}

/** Pass/fail of each hosting target. The single-organization read is the first route. */
export function evaluateHostingTargets(report: HostingReport): { name: string; passed: boolean; detail: string }[] {
  const checks: { name: string; passed: boolean; detail: string }[] = [];
  for (const hosting of report.hostings) {
    const single = hosting.routes[0];
    const read = ratio(hosting, report.baseline, 0);
    const minimum = HOSTING_TARGETS.minRatioToBaseline[hosting.hosting];
    if (single) {
      checks.push({
        name: `${hosting.hosting} hosting, ${single.route}: ≥ ${minimum}× baseline`,
        passed: read !== null && read >= minimum,
        detail: read === null ? "n/a" : `${read.toFixed(2)}×`,
      });
    }
    const members = hosting.routes[1];
    const membersRatio = ratio(hosting, report.baseline, 1);
    const membersMinimum = HOSTING_TARGETS.minMembersRatioToBaseline[hosting.hosting];
    if (members) {
      checks.push({
        name: `${hosting.hosting} hosting, ${members.route}: ≥ ${membersMinimum}× baseline`,
        passed: membersRatio !== null && membersRatio >= membersMinimum,
        detail: membersRatio === null ? "n/a" : `${membersRatio.toFixed(2)}×`,
      });
    }
    if (hosting.hosting === "split") {
      for (const [name, bytes] of Object.entries(hosting.peakRssBytes)) {
        checks.push({
          name: `split hosting, ${name}: peak RSS under the routes' load ≤ ${megabytes(HOSTING_TARGETS.maxSplitProcessPeakRssBytes)}`,
          passed: bytes !== null && bytes <= HOSTING_TARGETS.maxSplitProcessPeakRssBytes,
          detail: megabytes(bytes),
        });
      }
    }
    const ofFloor = single && report.floor ? single.result.requestsPerSecond / report.floor.result.requestsPerSecond : null;
    if (hosting.hosting === "split" && single && report.floor) {
      checks.push({
        name: `split hosting, ${single.route}: ≥ ${HOSTING_TARGETS.minSplitRatioToFloor}× floor`,
        passed: ofFloor !== null && ofFloor >= HOSTING_TARGETS.minSplitRatioToFloor,
        detail: ofFloor === null ? "n/a" : `${ofFloor.toFixed(2)}×`,
      });
    }
    if (hosting.hosting === "one-process") {
      const peak = totalBytes(hosting.peakRssBytes);
      checks.push({
        name: `one-process hosting: peak RSS under load ≤ ${megabytes(HOSTING_TARGETS.maxOneProcessPeakRssBytes)}`,
        passed: peak !== null && peak <= HOSTING_TARGETS.maxOneProcessPeakRssBytes,
        detail: megabytes(peak),
      });
    }
  }
  return checks;
}

/** The hosting comparison as Markdown tables. */
export function formatHostingReport(report: HostingReport): string {
  const names = report.hostings.map((hosting) => hosting.hosting);
  const lines = [
    "## Hosting: one process or one per target",
    "",
    `| figure | ${names.join(" | ")} |`,
    `|---|${names.map(() => "---:").join("|")}|`,
    `| Imprint processes | ${report.hostings.map((hosting) => Object.keys(hosting.idleRssBytes).length).join(" | ")} |`,
    `| RSS at idle after start (sum) | ${report.hostings.map((hosting) => megabytes(totalBytes(hosting.idleRssBytes))).join(" | ")} |`,
    `| peak RSS under the routes' load (sum) | ${report.hostings.map((hosting) => megabytes(totalBytes(hosting.peakRssBytes))).join(" | ")} |`,
  ];
  for (const [index, route] of (report.hostings[0]?.routes ?? []).entries()) {
    const rate = (hosting: HostingMeasurement) => {
      const result = hosting.routes[index]?.result;
      const relative = ratio(hosting, report.baseline, index);
      return result
        ? `${result.requestsPerSecond.toFixed(0)} req/s (${relative === null ? "n/a" : `${relative.toFixed(2)}×`}), p99 ${result.p99Ms.toFixed(0)} ms`
        : "n/a";
    };
    lines.push(
      `| \`${route.route}\` (baseline ${report.baseline[index]?.result.requestsPerSecond.toFixed(0) ?? "n/a"} req/s) | ${report.hostings.map(rate).join(" | ")} |`,
    );
  }
  if (report.floor) {
    const floorRate = report.floor.result.requestsPerSecond;
    const ofFloor = (requestsPerSecond: number | undefined) =>
      requestsPerSecond === undefined || !floorRate ? "n/a" : `${(requestsPerSecond / floorRate).toFixed(2)}×`;
    lines.push(
      `| \`${report.floor.route}\` ÷ floor (floor ${floorRate.toFixed(0)} req/s, p99 ${report.floor.result.p99Ms.toFixed(0)} ms; baseline ${ofFloor(report.baseline[0]?.result.requestsPerSecond)}) | ${report.hostings.map((hosting) => ofFloor(hosting.routes[0]?.result.requestsPerSecond)).join(" | ")} |`,
    );
  }
  if (report.hostings.some((hosting) => hosting.cleanStart)) {
    const clean = (pick: (start: CleanStart) => number) =>
      report.hostings.map((hosting) => (hosting.cleanStart ? seconds(pick(hosting.cleanStart)) : "n/a")).join(" | ");
    lines.push(`| \`npm start\` from a clean clone to ready | ${clean((start) => start.totalMs)} |`);
    lines.push(`| of which install and build | ${clean((start) => start.installAndBuildMs)} |`);
    lines.push(`| of which first start (initdb, migrations, every target) | ${clean((start) => start.startMs)} |`);
  }
  lines.push("", "| process | hosting | RSS at idle | peak RSS under load |", "|---|---|---:|---:|");
  for (const hosting of report.hostings) {
    for (const [name, idle] of Object.entries(hosting.idleRssBytes)) {
      lines.push(`| ${name} | ${hosting.hosting} | ${megabytes(idle)} | ${megabytes(hosting.peakRssBytes[name] ?? null)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}
