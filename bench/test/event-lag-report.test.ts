import { describe, expect, it } from "vitest";
import type { EventLagFigures } from "../src/event-lag.js";
import { evaluateEventLagTargets, formatEventLagReport } from "../src/event-lag-report.js";

const figures = (overrides: Partial<EventLagFigures> = {}): EventLagFigures => ({
  pages: 10_000,
  commits: 4,
  lagsMs: [30, 25, 280, 40],
  p50Ms: 30,
  p99Ms: 280,
  bulkIndexSeconds: 8.2,
  commitsDuringBulk: 4,
  audit: { lagsMs: [20, 15, 120, 35], p50Ms: 20, p99Ms: 120, maxMs: 120 },
  ...overrides,
});

const audit = (p99Ms: number) => ({ lagsMs: [10, p99Ms], p50Ms: 10, p99Ms, maxMs: p99Ms });

describe("event-lag benchmark targets", () => {
  it("passes figures that meet every target", () => {
    const checks = evaluateEventLagTargets(figures());
    expect(checks.map((check) => check.name)).toEqual([
      "event lag: a one-page commit searchable within 1000 ms p99 while a 10000-page import is indexed",
      "event lag: a one-page commit listed in the audit log, p99 < 1000 ms, while a 10000-page import is indexed",
    ]);
    expect(checks.every((check) => check.passed)).toBe(true);
  });

  it("fails the audit log's lag at 1 s p99 and above, on its own", () => {
    const failed = (overrides: Partial<EventLagFigures>) =>
      evaluateEventLagTargets(figures(overrides))
        .filter((check) => !check.passed)
        .map((check) => check.detail);
    expect(failed({ audit: audit(999) })).toEqual([]);
    expect(failed({ audit: audit(1_000) })).toEqual(["p99 1000 ms over 2 commits"]);
    expect(failed({ p99Ms: 1_200 })).toEqual(["p99 1200 ms over 4 commits"]);
  });

  it("leaves out the audit check and rows for runs before it was measured", () => {
    const { audit: _audit, ...earlier } = figures();
    expect(evaluateEventLagTargets(earlier)).toHaveLength(1);
    expect(formatEventLagReport({ settings: { pages: 10_000, commits: 4 }, figures: earlier })).not.toContain("audit");
  });

  it("formats the audit log's lag with search's", () => {
    const text = formatEventLagReport({ settings: { pages: 10_000, commits: 4 }, figures: figures() });
    expect(text).toContain("| commit to searchable, p99 | 280 ms |");
    expect(text).toContain("| commit to in the audit log, p50 | 20 ms |");
    expect(text).toContain("| commit to in the audit log, p99 | 120 ms |");
    expect(text).toContain("| commit to in the audit log, max | 120 ms |");
    expect(text).toContain("| each commit's audit lag, in order (ms) | 20, 15, 120, 35 |");
    expect(text).toContain("lists its `space.content.updated` entry");
  });
});
