import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadGatewayConfig, startGateway, type GatewayHandle } from "@imprint/gateway";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import { createLogger, type RunningService } from "@imprint/runtime";
import { createTestDatabase, testNatsUrl } from "@imprint/runtime/testing";
import { startFloorServer, type FloorServer } from "../src/baseline/floor.js";
import { startBaselineServer, type BaselineServer } from "../src/baseline/server.js";
import { runLoad } from "../src/load.js";
import { assertSameAnswers } from "../src/run.js";
import { seedOrganization, type SeededOrganization } from "../src/seed.js";

const quiet = createLogger("bench-test", { level: "error", write: () => {} });
const AUTH_CACHE_TTL_MS = 5_000;

async function getJson(url: string, token: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  // Response bodies are checked field by field below; their shape is what is under test.
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe("benchmark baseline against the real gateway and identity service", () => {
  let identity: RunningService;
  let gateway: GatewayHandle;
  let baseline: BaselineServer;
  let floor: FloorServer;
  let seeded: SeededOrganization;
  const publicUrl = "http://docs-api.test";

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "bench");
    identity = await startIdentityService(
      loadIdentityConfig({
        DATABASE_URL: databaseUrl,
        NATS_URL: await testNatsUrl(),
        GRPC_PORT: "0",
        LOG_LEVEL: "error",
        SHUTDOWN_GRACE_MS: "1000",
        // Its own key, not one written into the working directory's ./data.
        IDENTITY_SECRETS_KEY: randomBytes(32).toString("base64url"),
      }),
      { logger: quiet },
    );
    gateway = await startGateway(
      loadGatewayConfig({
        IMPRINT_PORT: "0",
        IDENTITY_GRPC_ADDRESS: identity.address,
        // The benchmarked routes are identity's only; nothing listens here, and nothing calls it.
        CONTENT_GRPC_ADDRESS: "127.0.0.1:1",
        COLLABORATION_GRPC_ADDRESS: "127.0.0.1:1",
        PUBLISHING_GRPC_ADDRESS: "127.0.0.1:1",
        INTEGRATION_GRPC_ADDRESS: "127.0.0.1:1",
        IMPRINT_PUBLIC_URL: publicUrl,
        AUTH_CACHE_TTL_MS: String(AUTH_CACHE_TTL_MS),
        LOG_LEVEL: "error",
      }),
      { logger: quiet },
    );
    baseline = await startBaselineServer({ databaseUrl, publicUrl, authCacheTtlMs: AUTH_CACHE_TTL_MS, logger: quiet });
    floor = await startFloorServer({ databaseUrl, publicUrl, authCacheTtlMs: AUTH_CACHE_TTL_MS, logger: quiet });
    seeded = await seedOrganization(identity.address, 7);
  });

  afterAll(async () => {
    await baseline?.stop();
    await floor?.stop();
    await gateway?.stop();
    await identity?.stop();
  });

  it("seeds one organization with the requested number of members, owner included", async () => {
    const members = await getJson(`${gateway.url}/v1/orgs/${seeded.organizationId}/members?limit=100`, seeded.token);
    expect(members.status).toBe(200);
    expect(members.body.count).toBe(7);
    expect(members.body.items).toHaveLength(7);
    expect(members.body.items.filter((m: { role: string }) => m.role === "admin")).toHaveLength(1);
  });

  it("answers the benchmarked routes exactly as the gateway does", async () => {
    await expect(
      assertSameAnswers(
        [
          { route: "organization", path: `/v1/orgs/${seeded.organizationId}` },
          { route: "members", path: `/v1/orgs/${seeded.organizationId}/members?limit=100` },
          { route: "first members page", path: `/v1/orgs/${seeded.organizationId}/members?limit=3` },
          { route: "members ascending", path: `/v1/orgs/${seeded.organizationId}/members?limit=3&order=asc` },
        ],
        gateway.url,
        baseline.url,
        seeded.token,
      ),
    ).resolves.toBeUndefined();
  });

  it("pages members with the same cursor semantics as the gateway", async () => {
    const walk = async (base: string) => {
      const ids: string[] = [];
      let path = `/v1/orgs/${seeded.organizationId}/members?limit=3`;
      for (;;) {
        const page = await getJson(base + path, seeded.token);
        expect(page.status).toBe(200);
        ids.push(...page.body.items.map((m: { id: string }) => m.id));
        if (!page.body.next) return ids;
        path = `/v1/orgs/${seeded.organizationId}/members?limit=3&page=${encodeURIComponent(page.body.next.page)}`;
      }
    };
    const ours = await walk(gateway.url);
    expect(ours).toHaveLength(7);
    expect(await walk(baseline.url)).toEqual(ours);
  });

  it("rejects what the gateway rejects, with the same status and error body", async () => {
    const cases = [
      { path: `/v1/orgs/${seeded.organizationId}`, token: "imp_not-a-real-token-000000000" },
      { path: "/v1/orgs/00000000-0000-4000-8000-000000000000", token: seeded.token },
      { path: "/v1/orgs/not-a-uuid/members", token: seeded.token },
    ];
    for (const { path, token } of cases) {
      const [ours, theirs] = await Promise.all([getJson(gateway.url + path, token), getJson(baseline.url + path, token)]);
      expect(ours.status).toBeGreaterThanOrEqual(400);
      expect(theirs).toEqual(ours);
    }
    const noHeader = await fetch(`${baseline.url}/v1/orgs/${seeded.organizationId}`);
    expect(noHeader.status).toBe(401);
    expect(noHeader.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("has a floor that answers the organization read, and rejects what the gateway rejects, as the gateway does", async () => {
    await expect(
      assertSameAnswers([{ route: "organization", path: `/v1/orgs/${seeded.organizationId}` }], gateway.url, floor.url, seeded.token),
    ).resolves.toBeUndefined();
    const cases = [
      { path: `/v1/orgs/${seeded.organizationId}`, token: "imp_not-a-real-token-000000000" },
      { path: "/v1/orgs/00000000-0000-4000-8000-000000000000", token: seeded.token },
      { path: "/v1/orgs/not-a-uuid", token: seeded.token },
    ];
    for (const { path, token } of cases) {
      const [ours, theirs] = await Promise.all([getJson(gateway.url + path, token), getJson(floor.url + path, token)]);
      expect(ours.status).toBeGreaterThanOrEqual(400);
      expect(theirs).toEqual(ours);
    }
    const noHeader = await fetch(`${floor.url}/v1/orgs/${seeded.organizationId}`);
    expect(noHeader.status).toBe(401);
    expect(noHeader.headers.get("www-authenticate")).toContain("Bearer");
    const load = await runLoad({
      url: `${floor.url}/v1/orgs/${seeded.organizationId}`,
      token: seeded.token,
      connections: 4,
      durationSeconds: 1,
      warmupSeconds: 0,
    });
    expect(load.total).toBeGreaterThan(10);
    expect(load.non2xx + load.errors).toBe(0);
  });

  it("refuses an out-of-range limit with a 400 naming the parameter", async () => {
    const response = await getJson(`${baseline.url}/v1/orgs/${seeded.organizationId}/members?limit=1001`, seeded.token);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/limit/);
  });

  it("sustains a short load run with only successful responses", async () => {
    const result = await runLoad({
      url: `${baseline.url}/v1/orgs/${seeded.organizationId}`,
      token: seeded.token,
      connections: 4,
      durationSeconds: 1,
      warmupSeconds: 0,
    });
    expect(result.total).toBeGreaterThan(10);
    expect(result.non2xx).toBe(0);
    expect(result.errors).toBe(0);
    expect(result.requestsPerSecond).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });
});
