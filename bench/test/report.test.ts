import { describe, expect, it } from "vitest";
import { evaluateTargets, formatPeaksBySection, formatReport, TARGETS, type BenchmarkReport } from "../src/report.js";
import { loadResult } from "./support/load-result.js";

const result = (requestsPerSecond: number, p99Ms: number, non2xx = 0) => loadResult(requestsPerSecond, p99Ms, p99Ms / 4, non2xx);
const MB = 1024 * 1024;

describe("benchmark targets", () => {
  it("passes a run that meets every target", () => {
    const checks = evaluateTargets([{ route: "GET /v1/orgs/{id}", imprint: result(2_500, 30), baseline: result(3_000, 20) }], {
      gateway: 90 * MB,
      identity: 120 * MB,
      baseline: 100 * MB,
    });
    expect(checks.every((check) => check.passed)).toBe(true);
  });

  it("fails each missed target separately", () => {
    const checks = evaluateTargets([{ route: "GET /v1/orgs/{id}", imprint: result(1_500, 80, 3), baseline: result(2_500, 20) }], {
      gateway: 200 * MB,
      identity: null,
    });
    const failed = checks.filter((check) => !check.passed).map((check) => check.name);
    expect(failed).toEqual([
      `GET /v1/orgs/{id}: ≥ ${TARGETS.minRequestsPerSecond} req/s`,
      `GET /v1/orgs/{id}: p99 ≤ ${TARGETS.maxP99Ms} ms`,
      `GET /v1/orgs/{id}: ≥ ${TARGETS.minRatioToBaseline}× baseline`,
      "GET /v1/orgs/{id}: no failed requests",
      "gateway: peak RSS < 150.0 MB",
      "identity: peak RSS < 150.0 MB",
    ]);
  });

  it("formats the ratio and memory tables", () => {
    const routes = [{ route: "GET /v1/orgs/{id}", imprint: result(2_400, 30), baseline: result(3_000, 20) }];
    const peakRssBytes = { gateway: 80 * MB, identity: 110 * MB, baseline: 95 * MB };
    const report: BenchmarkReport = {
      startedAt: "2026-01-01T00:00:00.000Z",
      settings: { connections: 50, durationSeconds: 10, warmupSeconds: 2, members: 150, authCacheTtlMs: 5000 },
      machine: { node: "24.0.0", platform: "linux", cpus: 2, cpuModel: "test cpu", totalMemoryBytes: 4096 * MB },
      routes,
      peakRssBytes,
      checks: evaluateTargets(routes, peakRssBytes),
    };
    const markdown = formatReport(report);
    expect(markdown).toContain("| `GET /v1/orgs/{id}` | 0.80× | 30.0 / 20.0 ms |");
    expect(markdown).toContain("| identity | 110.0 MB |");
    expect(markdown).toContain("| `GET /v1/orgs/{id}` | imprint (gateway → identity) | 2400 | 7.5 | 30.0 | 60.0 | 0 | 0 |");
  });
});

describe("peak RSS by part of the run", () => {
  it("shows each process's peak after each part, marking the part that grew it by more than 32 MB", () => {
    const table = formatPeaksBySection([
      { section: "routes", peakRssBytes: { content: 200 * MB, identity: 300 * MB } },
      { section: "content", peakRssBytes: { content: 700 * MB, identity: 310 * MB } },
      { section: "search", peakRssBytes: { content: 720 * MB, identity: null } },
    ]);
    expect(table.split("\n").slice(2)).toEqual([
      "| part | content | identity |",
      "|---|---:|---:|",
      "| routes | 200.0 MB | 300.0 MB |",
      "| content | **700.0 MB** | 310.0 MB |",
      "| search | 720.0 MB | n/a |",
    ]);
  });
});
