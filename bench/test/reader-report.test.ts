import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { countWords, pageMarkdown, signVisitorToken, type ReaderFigures } from "../src/reader.js";
import { evaluateReaderTargets, formatReaderReport } from "../src/reader-report.js";
import { loadResult } from "./support/load-result.js";

const load = (requestsPerSecond: number, p99Ms: number, non2xx = 0) => loadResult(requestsPerSecond, p99Ms, Math.round(p99Ms / 3), non2xx);

const figures = (overrides: Partial<ReaderFigures> = {}): ReaderFigures => ({
  pages: 100,
  wordsPerPage: 5_150,
  pageBytes: 86_000,
  connections: 32,
  firstRender: { count: 100, p50Ms: 40, p99Ms: 90, maxMs: 110 },
  cached: load(3_000, 20),
  staticReference: load(5_000, 10),
  visitorAuth: load(2_500, 25),
  visitorSeesConditional: true,
  lighthouse: {
    url: "http://127.0.0.1:1/o/reader-bench/page-001",
    reportPath: "/tmp/lighthouse.html",
    scores: { performance: 97, accessibility: 96, bestPractices: 100, seo: 100 },
    failedAudits: [],
  },
  ...overrides,
});

describe("reader benchmark targets", () => {
  it("passes figures that meet every target", () => {
    const checks = evaluateReaderTargets(figures());
    expect(checks).toHaveLength(8);
    expect(checks.filter((check) => !check.passed)).toEqual([]);
  });

  it("fails each missed target on its own", () => {
    const checks = evaluateReaderTargets(
      figures({
        cached: load(1_000, 80),
        visitorAuth: load(500, 120),
        firstRender: { count: 100, p50Ms: 90, p99Ms: 200, maxMs: 260 },
        lighthouse: { url: "u", scores: { performance: 90, accessibility: 95, bestPractices: 100, seo: 100 }, failedAudits: [] },
      }),
    );
    expect(checks.filter((check) => !check.passed).map((check) => check.name.replace(/^reader: /, "").slice(0, 30))).toEqual([
      "a 5150-word page at 32 connect",
      "a 5150-word page at 32 connect",
      "first render of a 5150-word pa",
      "the page on a visitor-auth sit",
      "Lighthouse performance ≥ 95",
    ]);
  });

  it("fails the visitor-auth target when the visitor's claims did not open the conditional site-space", () => {
    const check = evaluateReaderTargets(figures({ visitorSeesConditional: false })).find((candidate) => candidate.name.includes("visitor-auth"))!;
    expect(check.passed).toBe(false);
    expect(check.detail).toContain("NOT shown");
  });

  it("fails every Lighthouse category when the audit could not run", () => {
    const checks = evaluateReaderTargets(figures({ lighthouse: { url: "u", error: "Chromium was not found (set CHROMIUM_PATH)" } })).filter((check) =>
      check.name.includes("Lighthouse"),
    );
    expect(checks.map((check) => [check.passed, check.detail])).toEqual(Array(4).fill([false, "not audited: Chromium was not found (set CHROMIUM_PATH)"]));
  });

  it("holds the page with math, tabs, an OpenAPI operation and a diagram to the same Lighthouse scores, and reports it", () => {
    const blocksLighthouse = {
      url: "http://127.0.0.1:1/o/reader-bench/blocks",
      scores: { performance: 88, accessibility: 100, bestPractices: 100, seo: 100 },
      failedAudits: [{ id: "total-blocking-time", title: "Total Blocking Time", score: 0.4, categories: ["performance"], weight: 30, displayValue: "900 ms" }],
    };
    const checks = evaluateReaderTargets(figures({ blocksLighthouse })).filter((check) => check.name.includes("OpenAPI"));
    expect(checks.map((check) => [check.passed, check.detail])).toEqual([
      [false, "88"],
      [true, "100"],
      [true, "100"],
      [true, "100"],
    ]);
    const text = formatReaderReport({
      settings: { pages: 100, connections: 32, durationSeconds: 10, warmupSeconds: 2, lighthouse: true },
      figures: figures({ blocksLighthouse }),
    });
    expect(text).toContain(
      "a page with math, tabs, an OpenAPI operation and a mermaid diagram (below its first screen), http://127.0.0.1:1/o/reader-bench/blocks",
    );
    expect(text).toContain("| 88 | 100 | 100 | 100 |");
    expect(text).toContain("| `total-blocking-time` Total Blocking Time | performance | 0.40 | 900 ms |");
  });

  it("formats the figures with their references and ratios", () => {
    const text = formatReaderReport({ settings: { pages: 100, connections: 32, durationSeconds: 10, warmupSeconds: 2, lighthouse: true }, figures: figures() });
    expect(text).toContain("| static node:http, same bytes (reference) | 5000 | 3 ms | 10 ms | 20 ms | 0 |");
    expect(text).toContain("| reader ÷ static, req/s | 0.60× |");
    expect(text).toContain("| public ÷ visitor-auth, req/s | 1.20× |");
    expect(text).toContain("| 97 | 96 | 100 | 100 |");
  });
});

describe("reader benchmark pages", () => {
  it("are the same on every run, about 5,000 words with code blocks and tables", () => {
    const page = pageMarkdown(7);
    expect(pageMarkdown(7)).toBe(page);
    expect(pageMarkdown(8)).not.toBe(page);
    expect(countWords(page)).toBeGreaterThanOrEqual(5_000);
    expect(countWords(page)).toBeLessThan(5_600);
    expect(page).toMatch(/^---\ndescription: .+\n---\n\n# Reader benchmark page 7\n/);
    expect(page).toContain("\n```ts\nexport interface ");
    expect(page).toContain("\n| Option | Type | Default | Description |\n| --- | --- | --- | --- |\n");
    expect(page).toContain("[page 6](./page-006.md)");
  });

  it("signs visitor tokens with HS256 over the key's text", () => {
    const token = signVisitorToken({ plan: "pro", exp: 2_000_000_000 }, "secret");
    const [header, payload, signature] = token.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    expect(JSON.parse(Buffer.from(payload!, "base64url").toString())).toEqual({ plan: "pro", exp: 2_000_000_000 });
    expect(signature).toBe(createHmac("sha256", "secret").update(`${header}.${payload}`).digest("base64url"));
  });
});
