import { describe, expect, it } from "vitest";
import {
  evaluateHostingTargets,
  formatHostingReport,
  HOSTING_TARGETS,
  totalBytes,
  type HostingMeasurement,
  type HostingReport,
} from "../src/hosting-report.js";
import type { LoadResult } from "../src/load.js";

const MB = 1024 * 1024;
const result = (requestsPerSecond: number): LoadResult => ({
  requestsPerSecond,
  p50Ms: 10,
  p99Ms: 40,
  maxMs: 80,
  total: requestsPerSecond * 10,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  durationSeconds: 10,
});
const ROUTES = ["GET /v1/orgs/{id}", "GET /v1/orgs/{id}/members?limit=100"];

function hosting(name: HostingMeasurement["hosting"], rates: number[], peak: Record<string, number>): HostingMeasurement {
  return {
    hosting: name,
    idleRssBytes: Object.fromEntries(Object.keys(peak).map((process) => [process, 100 * MB])),
    routes: rates.map((rate, index) => ({ route: ROUTES[index]!, result: result(rate) })),
    peakRssBytes: peak,
  };
}

const baseline = [
  { route: ROUTES[0]!, result: result(1_000) },
  { route: ROUTES[1]!, result: result(200) },
];

describe("hosting targets", () => {
  it("checks the one-process memory sum, each split process's peak and each hosting's ratios to the baseline", () => {
    const report: HostingReport = {
      hostings: [hosting("one-process", [1_050, 180], { imprint: 300 * MB }), hosting("split", [1_200, 230], { identity: 300 * MB, gateway: 200 * MB })],
      baseline,
    };
    expect(evaluateHostingTargets(report)).toEqual([
      { name: `one-process hosting, ${ROUTES[0]}: ≥ 1× baseline`, passed: true, detail: "1.05×" },
      { name: `one-process hosting, ${ROUTES[1]}: ≥ 0.9× baseline`, passed: true, detail: "0.90×" },
      { name: "one-process hosting: peak RSS under load ≤ 350.0 MB", passed: true, detail: "300.0 MB" },
      { name: `split hosting, ${ROUTES[0]}: ≥ 1.1× baseline`, passed: true, detail: "1.20×" },
      { name: `split hosting, ${ROUTES[1]}: ≥ 1.1× baseline`, passed: true, detail: "1.15×" },
      { name: "split hosting, identity: peak RSS under the routes' load ≤ 256.0 MB", passed: false, detail: "300.0 MB" },
      { name: "split hosting, gateway: peak RSS under the routes' load ≤ 256.0 MB", passed: true, detail: "200.0 MB" },
    ]);
  });

  it("reads the split hosting's organization read against the floor, and prints every figure as a fraction of it", () => {
    const report: HostingReport = {
      hostings: [hosting("one-process", [850, 180], { imprint: 400 * MB }), hosting("split", [1_200, 230], { identity: 300 * MB, gateway: 200 * MB })],
      baseline,
      floor: { route: ROUTES[0]!, result: result(3_000) },
    };
    expect(evaluateHostingTargets(report)).toContainEqual({ name: `split hosting, ${ROUTES[0]}: ≥ 0.5× floor`, passed: false, detail: "0.40×" });
    expect(evaluateHostingTargets({ ...report, floor: { route: ROUTES[0]!, result: result(2_000) } })).toContainEqual({
      name: `split hosting, ${ROUTES[0]}: ≥ 0.5× floor`,
      passed: true,
      detail: "0.60×",
    });
    expect(formatHostingReport(report)).toContain(`| \`${ROUTES[0]}\` ÷ floor (floor 3000 req/s, p99 40 ms; baseline 0.33×) | 0.28× | 0.40× |`);
  });

  it("fails a one-process hosting over its memory target or under its ratio", () => {
    const report: HostingReport = { hostings: [hosting("one-process", [700, 180], { imprint: HOSTING_TARGETS.maxOneProcessPeakRssBytes + 1 })], baseline };
    expect(evaluateHostingTargets(report).map((check) => check.passed)).toEqual([false, true, false]);
    expect(totalBytes({ a: 1, b: null })).toBeNull();
  });

  it("formats one column per hosting, with the clean starts when measured", () => {
    const oneProcess = {
      ...hosting("one-process", [850, 180], { imprint: 400 * MB }),
      cleanStart: { totalMs: 95_000, installAndBuildMs: 80_000, startMs: 15_000 },
    };
    const markdown = formatHostingReport({ hostings: [oneProcess, hosting("split", [1_200, 230], { identity: 300 * MB, gateway: 200 * MB })], baseline });
    expect(markdown).toContain("| figure | one-process | split |");
    expect(markdown).toContain("| peak RSS under the routes' load (sum) | 400.0 MB | 500.0 MB |");
    expect(markdown).toContain("| `GET /v1/orgs/{id}` (baseline 1000 req/s) | 850 req/s (0.85×), p99 40 ms | 1200 req/s (1.20×), p99 40 ms |");
    expect(markdown).toContain("| `npm start` from a clean clone to ready | 95.0 s | n/a |");
    expect(markdown).toContain("| gateway | split | 100.0 MB | 200.0 MB |");
  });
});
