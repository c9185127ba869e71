import { formatReplicasReport, type ReplicasReport } from "./replicas-report.js";
import { formatRateLimiterReport, type RateLimiterReport } from "./rate-limiter-report.js";
import { formatContentReport, type ContentReport } from "./content-report.js";
import { formatSearchReport, type SearchReport } from "./search-report.js";
import { formatMergeReport, type MergeReport } from "./merge-report.js";
import { formatGitReport, type GitReport } from "./git-report.js";
import { formatAuthoringReport, type AuthoringReport } from "./authoring-report.js";
import { formatPublishingReport, type PublishingReport } from "./publishing-report.js";
import { formatIntegrationReport, type IntegrationReport } from "./integration-report.js";
import { formatReaderReport, type ReaderReport } from "./reader-report.js";
import { formatAppReport, type AppReport } from "./app-report.js";
import { formatEventLagReport, type EventLagReport } from "./event-lag-report.js";
import { formatHostingReport, type HostingReport } from "./hosting-report.js";
import type { LoadResult } from "./load.js";

/** The targets of docs/benchmarks.md, checked on every run. */
export const TARGETS = {
  /** Single-organization read through the gateway, at 50 concurrent connections. */
  minRequestsPerSecond: 2_000,
  maxP99Ms: 50,
  /** Ours divided by the baseline's throughput. */
  minRatioToBaseline: 0.8,
  maxPeakRssBytes: 150 * 1024 * 1024,
} as const;

/** Each Imprint process's peak RSS (VmHWM, bytes) once a part of the run was over. */
export interface SectionPeaks {
  section: string;
  peakRssBytes: Record<string, number | null>;
}

export interface RouteMeasurement {
  route: string;
  imprint: LoadResult;
  baseline: LoadResult;
}

export interface BenchmarkReport {
  startedAt: string;
  settings: { connections: number; durationSeconds: number; warmupSeconds: number; members: number; authCacheTtlMs: number };
  machine: { node: string; platform: string; cpus: number; cpuModel: string; totalMemoryBytes: number };
  routes: RouteMeasurement[];
  /** Peak resident set size (VmHWM) per process at the end of the run, in bytes. */
  peakRssBytes: Record<string, number | null>;
  /** The same after each part of the run (routes, content, search …), in the order they ran. */
  peaksBySection?: SectionPeaks[];
  /** Both hostings (every target in one process, one process per target) on the same routes. */
  hosting?: HostingReport;
  checks: { name: string; passed: boolean; detail: string }[];
  /** The content figures (a 10,000-page space), when the stack runs the content service. */
  content?: ContentReport;
  /** The search figures (100,000 indexed sections), when the stack runs the content service. */
  search?: SearchReport;
  /** The change-request merge figures, when the stack runs content and collaboration. */
  merge?: MergeReport;
  /** The Git sync figures, when the stack runs content. */
  git?: GitReport;
  /** The change-request authoring figures (50-change batches), when the stack runs content and collaboration. */
  authoring?: AuthoringReport;
  /** The published-site figures (GET …/published of a 50 × 4 site), when the stack runs publishing. */
  publishing?: PublishingReport;
  /** The integration figures (a component's render, one revision fanned out to 100 installations), when the stack runs the integration service. */
  integration?: IntegrationReport;
  /** The reader figures (a ~5,000-word page kept and first rendered, visitor-auth, Lighthouse), when the stack hosts the reader. */
  reader?: ReaderReport;
  /** The app's figures (Lighthouse of the space and editor pages, signed in), when the stack runs content. */
  app?: AppReport;
  /** Event lag under a neighbour's bulk import, when the stack runs the content service. */
  eventLag?: EventLagReport;
  /** Split hosting with two copies of identity against one (the single-organization read). */
  replicas?: ReplicasReport;
  /** The rate limiter on against off (the single-organization read, split hosting). */
  rateLimiter?: RateLimiterReport;
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);
const megabytes = (bytes: number | null) => (bytes === null ? "n/a" : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/** Pass/fail of each target for this run. The single-org read is the `GET /v1/orgs/{id}` route. */
export function evaluateTargets(routes: RouteMeasurement[], peakRssBytes: Record<string, number | null>): BenchmarkReport["checks"] {
  const checks: BenchmarkReport["checks"] = [];
  const single = routes[0];
  if (single) {
    checks.push({
      name: `${single.route}: ≥ ${TARGETS.minRequestsPerSecond} req/s`,
      passed: single.imprint.requestsPerSecond >= TARGETS.minRequestsPerSecond,
      detail: `${fixed(single.imprint.requestsPerSecond)} req/s`,
    });
    checks.push({
      name: `${single.route}: p99 ≤ ${TARGETS.maxP99Ms} ms`,
      passed: single.imprint.p99Ms <= TARGETS.maxP99Ms,
      detail: `p99 ${fixed(single.imprint.p99Ms, 1)} ms`,
    });
  }
  for (const route of routes) {
    const ratio = route.imprint.requestsPerSecond / route.baseline.requestsPerSecond;
    checks.push({
      name: `${route.route}: ≥ ${TARGETS.minRatioToBaseline}× baseline`,
      passed: ratio >= TARGETS.minRatioToBaseline,
      detail: `${fixed(ratio, 2)}×`,
    });
    const failed = route.imprint.non2xx + route.imprint.errors + route.baseline.non2xx + route.baseline.errors;
    checks.push({ name: `${route.route}: no failed requests`, passed: failed === 0, detail: `${failed} failed` });
  }
  for (const [process, bytes] of Object.entries(peakRssBytes)) {
    checks.push({
      name: `${process}: peak RSS < ${megabytes(TARGETS.maxPeakRssBytes)}`,
      passed: bytes !== null && bytes < TARGETS.maxPeakRssBytes,
      detail: megabytes(bytes),
    });
  }
  return checks;
}

/** The report as Markdown tables (printed to the terminal and written to bench/results/latest.md). */
export function formatReport(report: BenchmarkReport): string {
  const { settings, machine } = report;
  const lines = [
    `# Benchmark ${report.startedAt}`,
    "",
    `${settings.connections} connections, ${settings.durationSeconds} s measured after a ${settings.warmupSeconds} s warm-up, one organization with ${settings.members} members, auth cache TTL ${settings.authCacheTtlMs} ms.`,
    `Node ${machine.node} on ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}, ${megabytes(machine.totalMemoryBytes)} RAM; load generator on the same machine.`,
    "",
    "| route | target | req/s | p50 ms | p99 ms | max ms | non-2xx | errors |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const route of report.routes) {
    for (const [target, result] of [
      ["imprint (gateway → identity)", route.imprint],
      ["baseline (one process)", route.baseline],
    ] as const) {
      lines.push(
        `| \`${route.route}\` | ${target} | ${fixed(result.requestsPerSecond)} | ${fixed(result.p50Ms, 1)} | ${fixed(result.p99Ms, 1)} | ${fixed(result.maxMs, 1)} | ${result.non2xx} | ${result.errors} |`,
      );
    }
  }
  lines.push("", "| route | ours / baseline (req/s) | p99 ours / baseline |", "|---|---:|---:|");
  for (const route of report.routes) {
    lines.push(
      `| \`${route.route}\` | ${fixed(route.imprint.requestsPerSecond / route.baseline.requestsPerSecond, 2)}× | ${fixed(route.imprint.p99Ms, 1)} / ${fixed(route.baseline.p99Ms, 1)} ms |`,
    );
  }
  lines.push("", "| process | peak RSS (VmHWM) |", "|---|---:|");
  for (const [process, bytes] of Object.entries(report.peakRssBytes)) lines.push(`| ${process} | ${megabytes(bytes)} |`);
  if (report.peaksBySection && report.peaksBySection.length > 1) lines.push("", formatPeaksBySection(report.peaksBySection));
  if (report.hosting) lines.push("", formatHostingReport(report.hosting).trimEnd());
  if (report.content) lines.push("", formatContentReport(report.content).trimEnd());
  if (report.search) lines.push("", formatSearchReport(report.search).trimEnd());
  if (report.merge) lines.push("", formatMergeReport(report.merge).trimEnd());
  if (report.git) lines.push("", formatGitReport(report.git).trimEnd());
  if (report.authoring) lines.push("", formatAuthoringReport(report.authoring).trimEnd());
  if (report.publishing) lines.push("", formatPublishingReport(report.publishing).trimEnd());
  if (report.integration) lines.push("", formatIntegrationReport(report.integration).trimEnd());
  if (report.reader) lines.push("", formatReaderReport(report.reader).trimEnd());
  if (report.app) lines.push("", formatAppReport(report.app).trimEnd());
  if (report.eventLag) lines.push("", formatEventLagReport(report.eventLag).trimEnd());
  if (report.replicas) lines.push("", formatReplicasReport(report.replicas).trimEnd());
  if (report.rateLimiter) lines.push("", formatRateLimiterReport(report.rateLimiter).trimEnd());
  lines.push("", "| target | result | |", "|---|---|---|");
  for (const check of report.checks) lines.push(`| ${check.name} | ${check.detail} | ${check.passed ? "pass" : "**FAIL**"} |`);
  return `${lines.join("\n")}\n`;
}

/** Peak RSS of each process after each part of the run, a jump marked with the part that caused it. */
export function formatPeaksBySection(peaks: readonly SectionPeaks[]): string {
  const processes = Object.keys(peaks[0]?.peakRssBytes ?? {});
  const lines = [
    "Peak RSS (VmHWM) of each process once each part of the run was over; **bold**: grown by more than 32 MB in that part.",
    "",
    `| part | ${processes.join(" | ")} |`,
    `|---|${processes.map(() => "---:").join("|")}|`,
  ];
  for (const [index, { section, peakRssBytes }] of peaks.entries()) {
    const cells = processes.map((name) => {
      const bytes = peakRssBytes[name] ?? null;
      const before = index > 0 ? (peaks[index - 1]!.peakRssBytes[name] ?? null) : null;
      const grew = bytes !== null && before !== null && bytes - before > 32 * 1024 * 1024;
      return grew ? `**${megabytes(bytes)}**` : megabytes(bytes);
    });
    lines.push(`| ${section} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
