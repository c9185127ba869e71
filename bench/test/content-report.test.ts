import { describe, expect, it } from "vitest";
import type { ContentFigures } from "../src/content.js";
import { evaluateContentTargets, formatContentReport } from "../src/content-report.js";
import { loadResult } from "./support/load-result.js";

const load = (requestsPerSecond: number, p99Ms: number, non2xx = 0) => loadResult(requestsPerSecond, p99Ms, p99Ms / 3, non2xx);

const figures = (overrides: Partial<ContentFigures> = {}): ContentFigures => ({
  pages: 10_000,
  seedSeconds: 4.2,
  pageByPath: load(2_500, 15),
  pageByPathOneConnection: load(600, 3),
  listPages: load(120, 900),
  orgRead: load(3_000, 12),
  oneEditRows: { total: 8, byTable: { revisions: 1, tree_nodes: 3, page_versions: 1, content_bodies: 1, spaces: 1, outbox_events: 1 } },
  duplicateMs: 15,
  history: { commits: 100, commitSeconds: 1.8, oldRevisionListPages: load(110, 990), headRevisionListPages: load(120, 900) },
  ...overrides,
});

describe("content benchmark targets", () => {
  it("passes figures that meet every target", () => {
    expect(evaluateContentTargets(figures()).every((check) => check.passed)).toBe(true);
  });

  it("fails each missed target on its own", () => {
    const checks = evaluateContentTargets(
      figures({ pageByPath: load(800, 120), oneEditRows: { total: 25, byTable: { tree_nodes: 25 } }, duplicateMs: 1_500, listPages: load(10, 5_000, 2) }),
    );
    expect(checks.filter((check) => !check.passed).map((check) => check.detail)).toEqual([
      "p99 120.0 ms",
      "120.0 ms ÷ 12.0 ms = 10.00×",
      "25 rows",
      "1500 ms",
      "2 failed",
    ]);
  });

  it("holds the old revision's listing to 1.5× the head revision's p99, and counts its failed requests", () => {
    const history = (oldP99Ms: number, non2xx = 0) => ({
      commits: 100,
      commitSeconds: 1.8,
      oldRevisionListPages: load(60, oldP99Ms, non2xx),
      headRevisionListPages: load(120, 900),
    });
    const failedDetails = (overrides: Partial<ContentFigures>) =>
      evaluateContentTargets(figures(overrides))
        .filter((check) => !check.passed)
        .map((check) => check.detail);
    expect(failedDetails({ history: history(1_350) })).toEqual([]);
    expect(failedDetails({ history: history(1_400) })).toEqual(["1400.0 ms ÷ 900.0 ms = 1.56×"]);
    expect(failedDetails({ history: history(900, 3) })).toEqual(["3 failed"]);
    expect(evaluateContentTargets(figures()).map((check) => check.name)).toContain(
      "content: listing of the revision 100 commits ago p99 ≤ 1.5× the head revision's, same route and connections",
    );
  });

  it("leaves out the history check and rows for runs before it was measured", () => {
    const { history: _history, ...earlier } = figures();
    expect(evaluateContentTargets(earlier).some((check) => check.name.includes("commits ago"))).toBe(false);
    expect(formatContentReport({ settings: { pages: 10_000, connections: 32, durationSeconds: 10, warmupSeconds: 2 }, figures: earlier })).not.toContain(
      "revisions/{revisionId}",
    );
  });

  it("formats the figures as Markdown tables", () => {
    const text = formatContentReport({ settings: { pages: 10_000, connections: 32, durationSeconds: 10, warmupSeconds: 2 }, figures: figures() });
    expect(text).toContain("| `GET /v1/spaces/{id}/content/path/{pagePath}` | 2500 | 5.0 | 15.0 | 30.0 | 0 | 0 |");
    expect(text).toContain("| rows written by a one-page edit | 8 (revisions 1, tree_nodes 3, page_versions 1, content_bodies 1, spaces 1, outbox_events 1) |");
    expect(text).toContain("| duplicate of the 10000-page space | 15 ms |");
    expect(text).toContain("| `GET /v1/orgs/{id} (reference)` | 3000 | 4.0 | 12.0 | 24.0 | 0 | 0 |");
    expect(text).toContain("| page by path p99 ÷ organization read p99 (32 connections) | 1.25× |");
    expect(text).toContain("| `GET /v1/spaces/{id}/revisions/{revisionId}/pages (the revision 100 commits ago)` | 110 | 330.0 | 990.0 | 1980.0 | 0 | 0 |");
    expect(text).toContain("| `GET /v1/spaces/{id}/revisions/{revisionId}/pages (the head revision)` | 120 | 300.0 | 900.0 | 1800.0 | 0 | 0 |");
    expect(text).toContain("| 100 one-page commits after the edit | 1.8 s |");
    expect(text).toContain("| revision 100 commits ago ÷ head revision, listing p99 (32 connections) | 1.10× |");
    expect(text).toContain("| revision 100 commits ago ÷ head revision, listing req/s | 0.92× |");
  });
});
