import { failedAuditLines } from "./lighthouse-report.js";
import type { LoadResult } from "./load.js";
import type { ReaderBenchmarkSettings, ReaderFigures, ReaderLighthouse } from "./reader.js";

/**
 * The reader targets of docs/benchmarks.md, each against a reference measured in the same run
 * where there is one:
 * - a kept ~5,000-word page at 32 connections: at least half the throughput of a plain node:http
 *   server answering the same bytes, and p99 under 30 ms;
 * - a page's first render (nothing kept yet), p99 under 150 ms;
 * - the same page on a visitor-auth site with adaptive content, read with the visitor's cookie:
 *   the public page's throughput at most 1.5× its own;
 * - Lighthouse: performance, accessibility, best practices and SEO each at least 95, on the measured
 *   page and on a page holding math, tabs, an OpenAPI operation and a mermaid diagram (issue 29).
 */
export const READER_TARGETS = {
  /** Issue 26 (0.5 before it). */
  minThroughputRatioToStatic: 0.6,
  maxCachedP99Ms: 30,
  maxFirstRenderP99Ms: 150,
  maxPublicToVisitorAuthRatio: 1.5,
  minLighthouseScore: 95,
} as const;

export interface ReaderReport {
  settings: ReaderBenchmarkSettings;
  figures: ReaderFigures;
}

type Check = { name: string; passed: boolean; detail: string };

const failed = (result: LoadResult) => result.non2xx + result.errors + result.timeouts;
const rate = (result: LoadResult) => `${result.requestsPerSecond.toFixed(0)} req/s`;

export function evaluateReaderTargets(figures: ReaderFigures): Check[] {
  const { cached, staticReference, visitorAuth, firstRender } = figures;
  const toStatic = staticReference.requestsPerSecond > 0 ? cached.requestsPerSecond / staticReference.requestsPerSecond : 0;
  const publicToVisitor = visitorAuth.requestsPerSecond > 0 ? cached.requestsPerSecond / visitorAuth.requestsPerSecond : Number.POSITIVE_INFINITY;
  const p99Ratio = cached.p99Ms > 0 ? visitorAuth.p99Ms / cached.p99Ms : Number.POSITIVE_INFINITY;
  const at = `a ${figures.wordsPerPage}-word page at ${figures.connections} connections`;
  const checks: Check[] = [
    {
      name: `reader: ${at}, kept, ≥ ${READER_TARGETS.minThroughputRatioToStatic}× a static node:http server's req/s`,
      passed: failed(cached) === 0 && failed(staticReference) === 0 && toStatic >= READER_TARGETS.minThroughputRatioToStatic,
      detail: `${rate(cached)} vs ${rate(staticReference)} static (${toStatic.toFixed(2)}×), failed ${failed(cached)} / ${failed(staticReference)}`,
    },
    {
      name: `reader: ${at}, kept, p99 < ${READER_TARGETS.maxCachedP99Ms} ms`,
      passed: failed(cached) === 0 && cached.p99Ms < READER_TARGETS.maxCachedP99Ms,
      detail: `p99 ${cached.p99Ms} ms (static ${staticReference.p99Ms} ms)`,
    },
    {
      name: `reader: first render of a ${figures.wordsPerPage}-word page (${firstRender.count} pages, once each), p99 < ${READER_TARGETS.maxFirstRenderP99Ms} ms`,
      passed: firstRender.count > 0 && firstRender.p99Ms < READER_TARGETS.maxFirstRenderP99Ms,
      detail: `p99 ${firstRender.p99Ms.toFixed(1)} ms, p50 ${firstRender.p50Ms.toFixed(1)} ms`,
    },
    {
      name: `reader: the page on a visitor-auth site with adaptive content, public req/s ≤ ${READER_TARGETS.maxPublicToVisitorAuthRatio}× its own`,
      passed: failed(visitorAuth) === 0 && figures.visitorSeesConditional && publicToVisitor <= READER_TARGETS.maxPublicToVisitorAuthRatio,
      detail: `${rate(visitorAuth)} vs ${rate(cached)} public (${publicToVisitor.toFixed(2)}×; p99 ${visitorAuth.p99Ms} vs ${cached.p99Ms} ms, ${p99Ratio.toFixed(2)}×)${figures.visitorSeesConditional ? "" : ", the conditional site-space was NOT shown"}, failed ${failed(visitorAuth)}`,
    },
  ];
  if (figures.lighthouse) checks.push(...lighthouseChecks(figures.lighthouse, "reader: Lighthouse"));
  if (figures.blocksLighthouse)
    checks.push(...lighthouseChecks(figures.blocksLighthouse, "reader: Lighthouse of the page with math, a diagram, an OpenAPI operation and tabs,"));
  return checks;
}

/** One check per category of an audit: each at least READER_TARGETS.minLighthouseScore. */
function lighthouseChecks(lighthouse: ReaderLighthouse, label: string): Check[] {
  const categories = [
    ["performance", lighthouse.scores?.performance],
    ["accessibility", lighthouse.scores?.accessibility],
    ["best practices", lighthouse.scores?.bestPractices],
    ["SEO", lighthouse.scores?.seo],
  ] as const;
  return categories.map(([category, score]) => ({
    name: `${label} ${category} ≥ ${READER_TARGETS.minLighthouseScore}`,
    passed: score !== undefined && score >= READER_TARGETS.minLighthouseScore,
    detail: score === undefined ? `not audited: ${lighthouse.error ?? "no score"}` : String(score),
  }));
}

/** An audit's lines of the Markdown report: its scores, and the audits that cost points. */
function lighthouseLines(lighthouse: ReaderLighthouse, what: string): string[] {
  if (!lighthouse.scores) return ["", `Lighthouse of ${what}: not audited (${lighthouse.error ?? "no score"}).`];
  const { performance, accessibility, bestPractices, seo } = lighthouse.scores;
  const lines = [
    "",
    `Lighthouse (mobile, default throttling) of ${what}, ${lighthouse.url}${lighthouse.reportPath ? ` (report: \`${lighthouse.reportPath}\`)` : ""}:`,
    "",
    "| performance | accessibility | best practices | SEO |",
    "|---:|---:|---:|---:|",
    `| ${performance} | ${accessibility} | ${bestPractices} | ${seo} |`,
  ];
  lines.push(...failedAuditLines(lighthouse.failedAudits));
  const diagnostics = (lighthouse.failedAudits ?? []).filter((audit) => audit.weight === 0);
  if (diagnostics.length > 0) lines.push("", `Unweighted audits below 1: ${diagnostics.map((audit) => `\`${audit.id}\``).join(", ")}.`);
  return lines;
}

/** The reader section of the Markdown report. */
export function formatReaderReport(report: ReaderReport): string {
  const { figures } = report;
  const row = (what: string, result: LoadResult) =>
    `| ${what} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms} ms | ${result.p99Ms} ms | ${result.maxMs} ms | ${failed(result)} |`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
  const lines = [
    "## Reader",
    "",
    `${figures.pages} pages of about ${figures.wordsPerPage} words (headings, paragraphs, TypeScript code blocks, tables, lists) published through the REST API; the measured page answers ${(figures.pageBytes / 1024).toFixed(0)} KB of HTML. Loads at ${figures.connections} connections; the static reference is a plain node:http process answering the same bytes, measured in the same run.`,
    "",
    "| what | req/s | p50 | p99 | max | failed |",
    "|---|---:|---:|---:|---:|---:|",
    row("static node:http, same bytes (reference)", figures.staticReference),
    row("reader, public page (kept)", figures.cached),
    row("reader, visitor-auth + adaptive content (cookie)", figures.visitorAuth),
    "",
    "| ratio | value |",
    "|---|---:|",
    `| reader ÷ static, req/s | ${ratio(figures.cached.requestsPerSecond, figures.staticReference.requestsPerSecond)} |`,
    `| public ÷ visitor-auth, req/s | ${ratio(figures.cached.requestsPerSecond, figures.visitorAuth.requestsPerSecond)} |`,
    `| visitor-auth ÷ public, p99 | ${ratio(figures.visitorAuth.p99Ms, figures.cached.p99Ms)} |`,
    "",
    `First render (each of the ${figures.firstRender.count} pages requested once, one at a time): p50 ${figures.firstRender.p50Ms.toFixed(1)} ms, p99 ${figures.firstRender.p99Ms.toFixed(1)} ms, max ${figures.firstRender.maxMs.toFixed(1)} ms.`,
  ];
  if (figures.lighthouse) lines.push(...lighthouseLines(figures.lighthouse, "the measured page"));
  if (figures.blocksLighthouse) {
    lines.push(...lighthouseLines(figures.blocksLighthouse, "a page with math, tabs, an OpenAPI operation and a mermaid diagram (below its first screen)"));
  }
  return `${lines.join("\n")}\n`;
}
