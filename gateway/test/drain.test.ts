import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testLogger } from "@imprint/runtime/testing";
import { loadGatewayConfig, startGateway, UPSTREAMS, type GatewayHandle } from "../src/index.js";
import { call } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

// The gateway's half of a graceful stop (SIGTERM: drain, then stop), over HTTP. What is checked
// needs no upstream, so none runs: every upstream address is a closed port.

let gateway: GatewayHandle;
let target: TestStack;

beforeAll(async () => {
  const closedPorts = Object.fromEntries(Object.values(UPSTREAMS).map((upstream) => [upstream.addressVariable, "127.0.0.1:1"]));
  const config = loadGatewayConfig({ IMPRINT_PORT: "0", LOG_LEVEL: "error", SHUTDOWN_GRACE_MS: "1000", ...closedPorts });
  gateway = await startGateway(config, { logger: testLogger("gateway") });
  // The HTTP helpers read only the base URL.
  target = { baseUrl: gateway.url } as TestStack;
});
afterAll(() => gateway?.stop());

describe("draining before a stop", () => {
  it("answers /readyz 503 at once and still answers every request, each on a connection it then closes; after stop nothing listens", async () => {
    const before = await call(target, "GET", "/readyz", { notInOpenApi: "Imprint's readiness probe" });
    expect(before.body.error?.message ?? "").not.toMatch(/draining/);

    const endDrain = new AbortController();
    let drained = false;
    const draining = gateway.drain(endDrain.signal, 600_000).then(() => (drained = true));

    const ready = await call(target, "GET", "/readyz", { notInOpenApi: "Imprint's readiness probe" });
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ error: { code: 503, message: "Not ready: draining" } });
    const live = await call(target, "GET", "/healthz", { notInOpenApi: "Imprint's liveness probe" });
    expect(live.status).toBe(200);
    expect(live.headers.get("connection")).toBe("close");
    // An API request during the drain is answered by the gateway as usual (here: no token).
    expect((await call(target, "GET", "/v1/user")).status).toBe(401);
    expect(drained).toBe(false);

    endDrain.abort();
    await draining;
    await gateway.stop();
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
  });
});
