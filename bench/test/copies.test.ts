import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { combineLoads, measureCopies } from "../src/copies.js";
import type { LoadResult } from "../src/load.js";

// The alternating comparison behind the bench's copies figure, against two node:http servers that
// count what they are asked.
const servers: Server[] = [];
const asked = { one: 0, several: 0 };
const urls: Record<"one" | "several", string> = { one: "", several: "" };

beforeAll(async () => {
  for (const name of ["one", "several"] as const) {
    const server = createServer((request, response) => {
      asked[name]++;
      response.writeHead(request.headers.authorization === "Bearer t" ? 200 : 401).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    urls[name] = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }
});
afterAll(() => Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));

const load = (requestsPerSecond: number, durationSeconds: number, p50Ms: number, p99Ms: number, non2xx = 0): LoadResult => ({
  requestsPerSecond,
  p50Ms,
  p99Ms,
  maxMs: p99Ms * 2,
  total: requestsPerSecond * durationSeconds + non2xx,
  non2xx,
  errors: 0,
  timeouts: 0,
  durationSeconds,
});

describe("combineLoads", () => {
  it("weighs throughput by time, keeps the worst p99 and max, the median p50, and every failure", () => {
    const combined = combineLoads([load(100, 2, 5, 20), load(400, 6, 9, 40, 3), load(200, 2, 7, 30)]);
    expect(combined.requestsPerSecond).toBe((100 * 2 + 400 * 6 + 200 * 2) / 10);
    expect(combined).toMatchObject({ p50Ms: 7, p99Ms: 40, maxMs: 80, non2xx: 3, durationSeconds: 10, total: 200 + 2403 + 400 });
  });

  it("refuses nothing to combine", () => {
    expect(() => combineLoads([])).toThrow(/at least one/);
  });
});

describe("measureCopies", () => {
  it("alternates rounds between the two gateways, starting each pair with the other one", async () => {
    const measured = await measureCopies({
      severalUrl: urls.several,
      oneUrl: urls.one,
      path: "/v1/orgs/x",
      token: "t",
      connections: 2,
      rounds: 3,
      secondsPerRound: 1,
      warmupSeconds: 1,
      pids: { self: process.pid },
    });
    expect(measured.rounds.map((round) => round.copies)).toEqual(["one", "several", "several", "one", "one", "several"]);
    for (const result of [measured.oneCopy, measured.severalCopies]) {
      expect(result.durationSeconds).toBeGreaterThanOrEqual(3);
      expect(result.requestsPerSecond).toBeGreaterThan(0);
      expect(result.non2xx + result.errors).toBe(0);
    }
    expect(asked.one).toBeGreaterThan(0);
    expect(asked.several).toBeGreaterThan(0);
    expect(Object.keys(measured.severalCopiesCpuSeconds)).toContain("self");
  });
});
