import { patient, testLogger } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGatewayConfig, startGateway, UPSTREAMS, type GatewayHandle } from "../src/index.js";

// A gateway whose every upstream is down (nothing listens on port 1): it is ready all the same.
let gateway: GatewayHandle;
const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${gateway.url}${path}`, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  const addresses = Object.fromEntries(Object.values(UPSTREAMS).map((upstream) => [upstream.addressVariable, "127.0.0.1:1"]));
  const config = loadGatewayConfig({
    ...addresses,
    // Two copies of identity, both down.
    IDENTITY_GRPC_ADDRESS: "127.0.0.1:1,127.0.0.2:1",
    IMPRINT_PORT: "0",
    // Far beyond the test's bound: a route failing fast must owe it to the client, not to the deadline.
    UPSTREAM_TIMEOUT_MS: "30000",
  });
  gateway = await startGateway(config, { logger: testLogger("gateway") });
});
afterAll(() => gateway?.stop());

describe("the gateway with every upstream down", () => {
  it("is live and ready: readiness is this process's own", async () => {
    expect(await get("/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await get("/readyz")).toMatchObject({ status: 200, body: { status: "ok" } });
  });

  it("answers a route whose upstream has no ready copy with 503 and Retry-After within a second", async () => {
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const response = await get("/v1/orgs/someorg", { authorization: "Bearer imp_neverseenbefore0000000000" });
      expect(Date.now() - started).toBeLessThan(patient(1_000));
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("names every upstream without a serving copy on /healthz/upstreams, with counts and no addresses", async () => {
    const response = await get("/healthz/upstreams");
    expect(response).toMatchObject({ status: 503, body: { error: { code: 503 } } });
    expect((response.body.error as { message: string }).message).toBe(
      "Upstreams without a serving copy: " +
        [
          "identity is UNREACHABLE (0 of 2 copies serving)",
          ...["content", "collaboration", "publishing", "integration"].map((name) => `${name} is UNREACHABLE (0 of 1 copies serving)`),
        ].join(", "),
    );
  });

  it("turns unready when draining, and stays live", async () => {
    const endDrain = new AbortController();
    const draining = gateway.drain(endDrain.signal, 600_000);
    expect(await get("/readyz")).toMatchObject({ status: 503, body: { error: { code: 503, message: "Not ready: draining" } } });
    expect(await get("/healthz")).toMatchObject({ status: 200 });
    endDrain.abort();
    await draining;
  });
});
