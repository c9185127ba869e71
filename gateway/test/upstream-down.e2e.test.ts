import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, type TestOrganization } from "./support/factories.js";
import { patient } from "@imprint/runtime/testing";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack({ gatewayEnv: { UPSTREAM_TIMEOUT_MS: "2000" } });
  org = await createOrganization(stack);
  // Warm the principal cache, so the next failure comes from GetOrganization, not authentication.
  expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token })).status).toBe(200);
  await stack.stopUpstream("identity");
});
afterAll(() => stack?.stop());

describe("with the identity service down", () => {
  it("answers 503 with Retry-After, without internals, for cached and uncached tokens alike on a route that needs identity", async () => {
    for (const token of [org.owner.token, "imp_neverseenbefore0000000000"]) {
      const started = Date.now();
      const response = await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token });
      expect(Date.now() - started).toBeLessThan(patient(1_000));
      expect(response.status).toBe(503);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(response.body).toEqual({ error: { code: 503, message: "Service temporarily unavailable" } });
    }
    const errorLines = stack.gatewayLogs.filter((line) => line.level === "warn" && line.code === "unavailable");
    expect(errorLines.length).toBeGreaterThan(0);
  });

  it("stays ready and live, and names the upstream on /healthz/upstreams", async () => {
    const ready = await call(stack, "GET", "/readyz", { notInOpenApi: "Imprint's readiness probe" });
    expect(ready.status).toBe(200);
    const live = await call(stack, "GET", "/healthz", { notInOpenApi: "Imprint's liveness probe" });
    expect(live.status).toBe(200);
    const upstreams = await call(stack, "GET", "/healthz/upstreams", { notInOpenApi: "Imprint's upstream health report" });
    expect(upstreams.status).toBe(503);
    expect(upstreams.body.error.message).toMatch(/^Upstreams without a serving copy: identity is (UNREACHABLE|NOT_SERVING) \(0 of 1 copies serving\)$/);
    expect(upstreams.body.error.message).not.toMatch(/127\.0\.0\.1|:\d{2,5}/);
  });
});
