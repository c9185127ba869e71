import { describe, expect, it } from "vitest";
import type { AppFigures, AppLighthouse } from "../src/app.js";
import { evaluateAppTargets, formatAppReport } from "../src/app-report.js";

const audit = (overrides: Partial<AppLighthouse> = {}): AppLighthouse => ({
  url: "http://127.0.0.1:1/o/org/s/space/guide-1",
  reportPath: "/tmp/lighthouse-app.html",
  scores: { performance: 90, accessibility: 100, bestPractices: 100, seo: 90 },
  failedAudits: [
    { id: "largest-contentful-paint", title: "Largest Contentful Paint", score: 0.88, categories: ["performance"], weight: 25, displayValue: "2.6 s" },
  ],
  scriptTransferBytes: 14 * 1024,
  ...overrides,
});

const figures = (overrides: Partial<AppFigures> = {}): AppFigures => ({
  pages: 50,
  space: audit(),
  editor: audit({ scriptTransferBytes: 90 * 1024 }),
  ...overrides,
});

describe("app benchmark targets", () => {
  it("passes figures that meet every target: accessibility and best practices of both pages, the space page's JavaScript", () => {
    const checks = evaluateAppTargets(figures());
    expect(checks.map((check) => [check.name, check.passed])).toEqual([
      ["app: Lighthouse of the space page, accessibility ≥ 95", true],
      ["app: Lighthouse of the space page, best practices ≥ 95", true],
      ["app: Lighthouse of the editor page, accessibility ≥ 95", true],
      ["app: Lighthouse of the editor page, best practices ≥ 95", true],
      ["app: JavaScript the space page loads, ≤ 300 KiB transferred", true],
    ]);
    expect(checks[4]!.detail).toBe("14.0 KiB");
  });

  it("fails each missed target on its own, and an audit that did not run", () => {
    const checks = evaluateAppTargets(
      figures({
        space: audit({ scores: { performance: 100, accessibility: 94, bestPractices: 100, seo: 100 }, scriptTransferBytes: 301 * 1024 }),
        editor: { url: "http://127.0.0.1:1/editor", error: "Chromium was not found (set CHROMIUM_PATH)" },
      }),
    );
    expect(checks.filter((check) => !check.passed).map((check) => [check.name, check.detail])).toEqual([
      ["app: Lighthouse of the space page, accessibility ≥ 95", "94"],
      ["app: Lighthouse of the editor page, accessibility ≥ 95", "not audited: Chromium was not found (set CHROMIUM_PATH)"],
      ["app: Lighthouse of the editor page, best practices ≥ 95", "not audited: Chromium was not found (set CHROMIUM_PATH)"],
      ["app: JavaScript the space page loads, ≤ 300 KiB transferred", "301.0 KiB"],
    ]);
  });

  it("reports each page's scores, its JavaScript and the audits that cost points", () => {
    const text = formatAppReport({ settings: { pages: 50 }, figures: figures() });
    expect(text).toContain("## App");
    expect(text).toContain("| 90 | 100 | 100 | 90 | 14.0 KiB |");
    expect(text).toContain("| `largest-contentful-paint` Largest Contentful Paint | performance | 0.88 | 2.6 s |");
    expect(formatAppReport({ settings: { pages: 50 }, figures: figures({ editor: { url: "u", error: "boom" } }) })).toContain(
      "Lighthouse of the editor page: not audited (boom).",
    );
  });
});
