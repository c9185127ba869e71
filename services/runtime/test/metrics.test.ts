import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Gauge } from "prom-client";
import { CacheBudget } from "../src/cache-budget.js";
import { createLogger } from "../src/logger.js";
import { answerMetrics, isMetricsRequest, serveMetrics } from "../src/metrics/endpoint.js";
import { FastCounter, FastHistogram } from "../src/metrics/fast-metrics.js";
import { addScrapeSource, metricsRegistry, metricsText } from "../src/metrics/registry.js";
import { HttpRequestMetrics } from "../src/metrics/http.js";

const logger = createLogger("metrics-test", { level: "error" });

/** The value of one series line of `text` (name with its labels as written), or undefined. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("the process's registry", () => {
  it("renders fast counters and histograms in Prometheus's text format, buckets cumulative", async () => {
    const counter = new FastCounter("test_things_total", "Things.", ["kind"]);
    const histogram = new FastHistogram("test_wait_seconds", "Waits.", ["kind"], [0.1, 1]);
    const child = counter.child("a");
    expect(counter.child("a")).toBe(child);
    child.inc();
    child.inc(2);
    const waits = histogram.child("a");
    for (const seconds of [0.05, 0.5, 0.7, 3]) waits.observe(seconds);

    const text = await metricsText();
    expect(text).toContain("# TYPE test_things_total counter");
    expect(valueOf(text, 'test_things_total{kind="a"}')).toBe(3);
    expect(text).toContain("# TYPE test_wait_seconds histogram");
    expect(valueOf(text, 'test_wait_seconds_bucket{kind="a",le="0.1"}')).toBe(1);
    expect(valueOf(text, 'test_wait_seconds_bucket{kind="a",le="1"}')).toBe(3);
    expect(valueOf(text, 'test_wait_seconds_bucket{kind="a",le="+Inf"}')).toBe(4);
    expect(valueOf(text, 'test_wait_seconds_count{kind="a"}')).toBe(4);
    expect(valueOf(text, 'test_wait_seconds_sum{kind="a"}')).toBeCloseTo(4.25);
  });

  it("asks scrape sources at each scrape; a failing source leaves the rest of the scrape whole", async () => {
    const gauge = new Gauge({ name: "test_backlog", help: "Backlog.", registers: [metricsRegistry] });
    let backlog = 4;
    const removeGood = addScrapeSource({ collect: () => gauge.set(backlog) });
    const removeBad = addScrapeSource({
      collect: () => {
        throw new Error("database unreachable");
      },
    });
    try {
      expect(valueOf(await metricsText(), "test_backlog")).toBe(4);
      backlog = 7;
      expect(valueOf(await metricsText(), "test_backlog")).toBe(7);
    } finally {
      removeGood();
      removeBad();
    }
  });

  it("counts each cache's hits and misses by name and reads what it holds at scrape time", async () => {
    const budget = new CacheBudget(1_000);
    const cache = budget.cache<string>("test pages");
    cache.set("a", "page", 100);
    cache.get("a");
    cache.get("a");
    cache.get("b");
    const text = await metricsText();
    expect(valueOf(text, 'imprint_cache_hits_total{cache="test pages"}')).toBe(2);
    expect(valueOf(text, 'imprint_cache_misses_total{cache="test pages"}')).toBe(1);
    expect(valueOf(text, 'imprint_cache_size_bytes{cache="test pages"}')).toBe(100);
    expect(valueOf(text, 'imprint_cache_entries{cache="test pages"}')).toBe(1);
  });

  it("counts HTTP requests by route template, method and status, with one duration histogram per route and method", async () => {
    const http = new HttpRequestMetrics("test-server");
    http.observe("/v1/things/:id", "GET", 200, performance.now());
    http.observe("/v1/things/:id", "GET", 404, performance.now());
    http.observe("/v1/things/:id", "BREW", 200, performance.now());
    const text = await metricsText();
    expect(valueOf(text, 'imprint_http_requests_total{server="test-server",route="/v1/things/:id",method="GET",status="200"}')).toBe(1);
    expect(valueOf(text, 'imprint_http_requests_total{server="test-server",route="/v1/things/:id",method="GET",status="404"}')).toBe(1);
    expect(valueOf(text, 'imprint_http_requests_total{server="test-server",route="/v1/things/:id",method="other",status="200"}')).toBe(1);
    expect(valueOf(text, 'imprint_http_request_duration_seconds_count{server="test-server",route="/v1/things/:id",method="GET"}')).toBe(2);
  });
});

describe("GET /metrics", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  /** A server answering /metrics as the gateway and the reader do (before their own handlers). */
  async function serve(token: string | undefined): Promise<string> {
    const server = createServer((request, response) => {
      if (isMetricsRequest(request)) return void answerMetrics(request, response, token);
      response.writeHead(204).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("answers the registry without authentication by default, with Node's own series", async () => {
    const url = await serve(undefined);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const family of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds", "nodejs_gc_duration_seconds"]) {
      expect(text).toContain(`# TYPE ${family} `);
    }
    expect((await fetch(`${url}/other`)).status).toBe(204);
  });

  it("asks for the bearer token when one is set: 401 without it or with another, 200 with it", async () => {
    const token = "a-metrics-token-of-some-length";
    const url = await serve(token);
    const missing = await fetch(`${url}/metrics`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: "Bearer another-token-of-the-same-size" } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: "Basic abc" } })).status).toBe(401);
    const allowed = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("# TYPE process_resident_memory_bytes gauge");
  });

  it("on a metrics port: targets of one process asking for the same port share one listener, closed by the last", async () => {
    const first = await serveMetrics({ host: "127.0.0.1", port: 0, logger });
    const second = await serveMetrics({ host: "127.0.0.1", port: 0, logger });
    expect(second.url).toBe(first.url);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(first.url)).status).toBe(200);
    expect((await fetch(first.url.replace(/\/metrics$/, "/"))).status).toBe(404);
    await first.close();
    expect((await fetch(first.url)).status).toBe(200);
    await second.close();
    await expect(fetch(first.url)).rejects.toThrow();
  });
});
