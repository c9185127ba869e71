import { describe, expect, it } from "vitest";
import { bundleIntegration } from "../../scripts/lib/gitbook-cli.mjs";
import { COMPAT_FIXTURE, manifestPublication, type IntegrationFigures } from "../src/integration.js";
import { evaluateIntegrationTargets, fanOutSummary, formatIntegrationReport, INTEGRATION_TARGETS } from "../src/integration-report.js";
import { loadResult } from "./support/load-result.js";

const load = (requestsPerSecond: number, p99Ms: number, non2xx = 0) => loadResult(requestsPerSecond, p99Ms, p99Ms / 4, non2xx);

const figures = (overrides: Partial<IntegrationFigures> = {}): IntegrationFigures => ({
  connections: 16,
  scriptBytes: 30_000,
  compatSetup: { delivered: 2, failed: 0 },
  render: load(800, 30),
  reference: load(2_000, 15),
  integrations: 100,
  setupSeconds: 12.5,
  rounds: [
    { commitMs: 20, searchableMs: 40, recordedMs: 60, deliveredMs: 900 },
    { commitMs: 18, searchableMs: 35, recordedMs: 80, deliveredMs: 1_400 },
    { commitMs: 25, searchableMs: 50, recordedMs: 45, deliveredMs: 700 },
  ],
  ...overrides,
});

describe("integration benchmark targets", () => {
  it("passes figures that meet every target, with the render's ratio to its reference", () => {
    const checks = evaluateIntegrationTargets(figures());
    expect(checks.map((check) => check.passed)).toEqual([true, true, true]);
    expect(checks[0]!.detail).toBe("p99 30 ms (GET /v1/orgs/{id} 15 ms, 2.00×), 800 req/s, non-2xx 0");
    expect(checks[1]!.detail).toBe("30 ms ÷ 15 ms = 2.00×");
    expect(checks[2]!.detail).toBe(
      "worst 1400 ms, median 900 ms (medians: deliveries recorded after 60 ms, the same revision searchable after 40 ms, its commit 20 ms)",
    );
  });

  it("fails each missed target on its own: a slow or failing render, a render slow against its reference, a late fan-out", () => {
    const late = figures({ rounds: [...figures().rounds, { commitMs: 20, searchableMs: 40, recordedMs: 60, deliveredMs: INTEGRATION_TARGETS.fanOutMs }] });
    expect(evaluateIntegrationTargets(late).map((check) => check.passed)).toEqual([true, true, false]);
    expect(evaluateIntegrationTargets(figures({ render: load(800, 50) })).map((check) => check.passed)).toEqual([false, false, true]);
    expect(evaluateIntegrationTargets(figures({ render: load(800, 31) })).map((check) => check.passed)).toEqual([true, false, true]);
    expect(evaluateIntegrationTargets(figures({ render: load(800, 10, 3) }))[0]!.passed).toBe(false);
    expect(evaluateIntegrationTargets(figures({ rounds: [] }))[2]!.passed).toBe(false);
  });

  it("summarizes the fan-out's worst and median", () => {
    expect(fanOutSummary(figures())).toEqual({ worstMs: 1_400, medianMs: 900, commitMedianMs: 20, searchableMedianMs: 40, recordedMedianMs: 60 });
  });

  it("formats both figures with their references and ratios", () => {
    const text = formatIntegrationReport({
      settings: { integrations: 100, repeats: 3, connections: 16, durationSeconds: 10, warmupSeconds: 2 },
      figures: figures(),
    });
    expect(text).toContain("| `GET /v1/orgs/{id}` (reference) | 2000 | 3.75 ms | 15 ms | 0 |");
    expect(text).toContain("| `POST …/render` | 800 | 7.5 ms | 30 ms | 0 |");
    expect(text).toContain("| render ÷ reference, p99 | 2.00× |");
    expect(text).toContain("| 2 | 18 ms | 35 ms | 80 ms | 1400 ms |");
    expect(text).toContain("| median | 20 ms | 40 ms | 60 ms | 900 ms |");
    expect(text).toContain("| worst | 25 ms | 50 ms | 80 ms | 1400 ms |");
    expect(text).not.toContain("failed**");
  });

  it("says when the integration's setup hook failed, with the first reason", () => {
    const text = formatIntegrationReport({
      settings: { integrations: 100, repeats: 3, connections: 16, durationSeconds: 10, warmupSeconds: 2 },
      figures: figures({ compatSetup: { delivered: 0, failed: 2, firstFailure: "installation_setup: [error] GitBook API failed with [401]\n  at V" } }),
    });
    expect(text).toContain(
      "**2 of the integration's 2 `installation_setup` events failed**, the first: installation_setup: [error] GitBook API failed with [401] at V",
    );
  });
});

describe("the compat fixture the render figure runs", () => {
  it("is bundled with GitBook's runtime and published from its manifest", async () => {
    const script = await bundleIntegration(COMPAT_FIXTURE);
    expect(script).toContain("counter");
    expect(script).not.toMatch(/from\s*["']@gitbook\/runtime/);
    const { name, body } = await manifestPublication(COMPAT_FIXTURE);
    expect(name).toBe("imprint-compat");
    expect(body).toMatchObject({ scopes: ["space:content:read"], blocks: [{ id: "counter" }], configurations: { account: { required: ["greeting"] } } });
  });
});
