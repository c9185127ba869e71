import { gzipSync } from "node:zlib";
import { eventually, testLogger, testNatsUrl } from "@imprint/runtime/testing";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadGatewayConfig, startGateway, type GatewayHandle } from "../src/index.js";
import { createOrganization, type TestOrganization } from "./support/factories.js";
import { call, type CallOptions, type CallResult } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

const AUTH_CACHE_TTL_MS = 300;
const BODY_LIMIT_BYTES = 64 * 1024;
/** The one browser origin allowed to call this stack's API. */
const APP_ORIGIN = "https://app.imprint.test";

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack({
    gatewayEnv: {
      AUTH_CACHE_TTL_MS: String(AUTH_CACHE_TTL_MS),
      BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      CORS_ALLOWED_ORIGINS: APP_ORIGIN,
      // As behind a TLS-terminating ingress: the API's answers then carry HSTS.
      IMPRINT_PUBLIC_URL: "https://api.imprint.test",
    },
  });
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
});

describe("probes", () => {
  it("GET /healthz answers ok without authentication", async () => {
    const response = await call(stack, "GET", "/healthz", { notInOpenApi: "Imprint's liveness probe" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("GET /readyz answers ok", async () => {
    const response = await call(stack, "GET", "/readyz", { notInOpenApi: "Imprint's readiness probe" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("GET /healthz/upstreams answers ok with every upstream's copies", async () => {
    const response = await call(stack, "GET", "/healthz/upstreams", { notInOpenApi: "Imprint's upstream health report" });
    expect(response.status).toBe(200);
    const one = { status: "SERVING", copies: 1, serving: 1 };
    expect(response.body).toEqual({ status: "ok", upstreams: { identity: one, content: one, collaboration: one, publishing: one, integration: one } });
  });
});

describe("authentication", () => {
  const path = () => `/v1/orgs/${org.organizationId}`;

  it.each([
    ["missing", undefined],
    ["not a bearer credential", "Basic dXNlcjpwYXNz"],
    ["empty bearer", "Bearer "],
    ["malformed token", "Bearer not a token"],
    ["unknown token", "Bearer imp_0000000000000000000000000000"],
  ])("answers 401 with WWW-Authenticate for a %s token", async (_case, authorization) => {
    const response = await call(stack, "GET", path(), { headers: authorization === undefined ? {} : { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(response.body.error).toEqual({ code: 401, message: expect.any(String) });
  });

  it("accepts a token issued a moment ago", async () => {
    const issued = await stack.identity.tokens.issueToken({ email: org.owner.email, label: "fresh" });
    const response = await call(stack, "GET", path(), { token: issued.token });
    expect(response.status).toBe(200);
  });

  it("stops accepting a revoked token within the cache TTL", async () => {
    const issued = await stack.identity.tokens.issueToken({ email: org.owner.email, label: "to revoke" });
    expect((await call(stack, "GET", path(), { token: issued.token })).status).toBe(200);
    await stack.identity.tokens.revokeToken({ token: issued.token, tokenId: "" });
    const revokedAt = Date.now();
    await eventually(async () => (await call(stack, "GET", path(), { token: issued.token })).status === 401, AUTH_CACHE_TTL_MS + 2_000);
    expect(Date.now() - revokedAt).toBeLessThan(AUTH_CACHE_TTL_MS + 2_000);
    // The owner's other token is unaffected.
    expect((await call(stack, "GET", path(), { token: org.owner.token })).status).toBe(200);
  });
});

describe("request bodies", () => {
  const patch = (options: Parameters<typeof call>[3]) => call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, ...options });

  it("answers 413 past the body limit", async () => {
    const response = await patch({ json: { title: "Big", padding: "x".repeat(BODY_LIMIT_BYTES) } });
    expect(response.status).toBe(413);
    expect(response.body.error.message).toBe(`Request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes (the gateway's BODY_LIMIT_BYTES setting)`);
  });

  it("answers 413 to a client still sending a large body, which reads it (declared or streamed), instead of a reset", async () => {
    const url = `${stack.baseUrl}/v1/orgs/${org.organizationId}`;
    const headers = { authorization: `Bearer ${org.owner.token}`, "content-type": "application/json" };
    const large = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const streamed = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < large.length; offset += 256 * 1024) controller.enqueue(large.subarray(offset, offset + 256 * 1024));
          controller.close();
        },
      });
    // Several times: the reset came in a race between the answer and the rest of the body.
    for (let attempt = 0; attempt < 4; attempt += 1) {
      for (const [kind, body] of [
        ["declared", () => large],
        ["streamed", streamed],
      ] as const) {
        const response = await fetch(url, { method: "PATCH", headers, body: body(), duplex: "half" });
        // The rest of the body is read and discarded: the connection is not closed under the client.
        expect([kind, response.status, response.headers.get("connection"), await response.json()]).toEqual([
          kind,
          413,
          "keep-alive",
          { error: { code: 413, message: `Request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes (the gateway's BODY_LIMIT_BYTES setting)` } },
        ]);
      }
    }
  });

  it("answers 415 for a compressed body, never inflating it (a gzip bomb)", async () => {
    // 16 MiB of spaces, 16 kB compressed: a valid JSON document once inflated.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"title":"Bomb","padding":"'), Buffer.alloc(16 * 1024 * 1024, 0x20), Buffer.from('"}')]), { level: 9 });
    expect(bomb.length).toBeLessThan(BODY_LIMIT_BYTES);
    for (const encoding of ["gzip", "deflate", "br"]) {
      const response = await patch({ rawBody: bomb, headers: { "content-type": "application/json", "content-encoding": encoding } });
      expect([encoding, response.status, response.body]).toEqual([
        encoding,
        415,
        { error: { code: 415, message: `Content-Encoding ${encoding} is not accepted: send the request body uncompressed` } },
      ]);
    }
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token })).body.title).not.toBe("Bomb");
  });

  it("answers 415 for a body that is not JSON", async () => {
    const response = await patch({ rawBody: "title=Hello", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(response.status).toBe(415);
    const text = await patch({ rawBody: '{"title":"Hello"}', headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
  });

  it("answers 400 for malformed JSON", async () => {
    const response = await patch({ rawBody: '{"title": "unterminated', headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: 400, message: "Malformed JSON body" } });
  });

  it("accepts JSON with a charset parameter", async () => {
    const response = await patch({ rawBody: '{"title":"Charset Org"}', headers: { "content-type": "application/json; charset=utf-8" } });
    expect(response.status).toBe(200);
    expect(response.body.title).toBe("Charset Org");
  });
});

describe("routing", () => {
  it("answers an unknown route with a JSON 404", async () => {
    const response = await call(stack, "GET", "/v1/does-not-exist", { token: org.owner.token, notInOpenApi: "unknown route" });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe(404);
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const response = await call(stack, "DELETE", "/v1/orgs", { token: org.owner.token });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
    const put = await call(stack, "PUT", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "PATCH"]);
  });
});

describe("request ids and the access log", () => {
  it("echoes a sane X-Request-Id, replaces an unsafe one, and logs one line per request", async () => {
    const given = await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, headers: { "x-request-id": "req-123.abc" } });
    expect(given.headers.get("x-request-id")).toBe("req-123.abc");
    const unsafe = await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, headers: { "x-request-id": "bad id\twith spaces" } });
    const generated = unsafe.headers.get("x-request-id")!;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);

    const lines = stack.gatewayLogs.filter((line) => line.msg === "request" && line.request_id === "req-123.abc");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: `/v1/orgs/${org.organizationId}`, status: 200, user_id: org.owner.userId });
    expect(stack.gatewayLogs.some((line) => line.request_id === generated)).toBe(true);
  });

  it.each([
    ["401", () => call(stack, "GET", `/v1/orgs/${org.organizationId}`, { headers: { "x-request-id": "req-4xx-401" } }), "req-4xx-401"],
    [
      "404 of an unknown route",
      () => call(stack, "GET", "/v1/nowhere", { token: org.owner.token, headers: { "x-request-id": "req-4xx-404" }, notInOpenApi: "unknown route" }),
      "req-4xx-404",
    ],
    [
      "400 of a malformed body",
      () =>
        call(stack, "PATCH", `/v1/orgs/${org.organizationId}`, {
          token: org.owner.token,
          rawBody: "{",
          headers: { "content-type": "application/json", "x-request-id": "req-4xx-400" },
        }),
      "req-4xx-400",
    ],
  ])("logs a %s once, at info, on the request line with the reason the client read", async (_case, send, requestId) => {
    const response = await send();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const lines = stack.gatewayLogs.filter((line) => line.request_id === requestId);
    expect(lines).toEqual([expect.objectContaining({ level: "info", msg: "request", status: response.status, reason: response.body.error.message })]);
  });

  it("leaves the reason out of a successful request's line", async () => {
    await call(stack, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token, headers: { "x-request-id": "req-ok-reason" } });
    const [line] = stack.gatewayLogs.filter((entry) => entry.request_id === "req-ok-reason");
    expect(line).toMatchObject({ msg: "request", status: 200 });
    expect(line).not.toHaveProperty("reason");
  });
});

describe("rate limits", () => {
  // Every gateway of these tests runs on one frozen clock: its window never rolls mid-test.
  const frozen = new Date();
  const windowMs = 60_000;
  const resetAt = Math.ceil((frozen.getTime() - (frozen.getTime() % windowMs) + windowMs) / 1000);
  const gateways: GatewayHandle[] = [];

  /** Another gateway on the stack's upstreams with small limits. */
  async function limitedGateway(env: Record<string, string>): Promise<(method: string, path: string, options?: CallOptions) => Promise<CallResult>> {
    const logger = testLogger("limited gateway");
    const gateway = await startGateway(
      loadGatewayConfig({
        ...stack.upstreamEnv,
        IMPRINT_PORT: "0",
        RATE_LIMIT_WINDOW_MS: String(windowMs),
        RATE_LIMIT_TOKEN_READS: "4",
        RATE_LIMIT_TOKEN_WRITES: "2",
        RATE_LIMIT_TOKEN_EXPENSIVE: "1",
        RATE_LIMIT_IP_READS: "3",
        ...env,
      }),
      { logger, clock: () => frozen },
    );
    gateways.push(gateway);
    return (method, path, options) => call({ ...stack, baseUrl: gateway.url }, method, path, options);
  }
  afterAll(() => Promise.all(gateways.map((gateway) => gateway.stop())));

  const limitHeaders = (response: CallResult) => ({
    status: response.status,
    limit: response.headers.get("x-ratelimit-limit"),
    remaining: response.headers.get("x-ratelimit-remaining"),
    reset: response.headers.get("x-ratelimit-reset"),
  });

  it("says the caller's budget on every answer (200, 401, 404), and answers 429 with Retry-After past it", async () => {
    const send = await limitedGateway({});
    const orgPath = `/v1/orgs/${org.organizationId}`;
    const token = org.owner.token;
    expect(limitHeaders(await send("GET", orgPath, { token }))).toEqual({ status: 200, limit: "4", remaining: "3", reset: String(resetAt) });
    expect(limitHeaders(await send("GET", "/v1/nowhere", { token, notInOpenApi: "unknown route" }))).toEqual({
      status: 404,
      limit: "4",
      remaining: "2",
      reset: String(resetAt),
    });
    // Without a token, the client address's budget.
    expect(limitHeaders(await send("GET", orgPath))).toEqual({ status: 401, limit: "3", remaining: "2", reset: String(resetAt) });
    await send("GET", orgPath, { token });
    await send("GET", orgPath, { token });
    const refused = await send("GET", orgPath, { token });
    expect(limitHeaders(refused)).toEqual({ status: 429, limit: "4", remaining: "0", reset: String(resetAt) });
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil((resetAt * 1000 - frozen.getTime()) / 1000)));
    expect(refused.body).toEqual({ error: { code: 429, message: expect.stringMatching(/^Rate limit exceeded: 4 reads per 60 s for this token/) } });
    // Probes are never limited.
    expect((await send("GET", "/readyz", { notInOpenApi: "Imprint's readiness probe" })).headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("counts reads, writes and expensive operations apart", async () => {
    const send = await limitedGateway({});
    const token = org.owner.token;
    for (let read = 0; read < 4; read++) expect((await send("GET", `/v1/orgs/${org.organizationId}`, { token })).status).toBe(200);
    const write = await send("POST", `/v1/orgs/${org.organizationId}/spaces`, { token, json: { title: "Within its own budget" } });
    expect(limitHeaders(write)).toMatchObject({ status: 201, limit: "2", remaining: "1" });
    const search = () => send("GET", `/v1/orgs/${org.organizationId}/search?query=budget`, { token });
    expect(limitHeaders(await search())).toMatchObject({ status: 200, limit: "1", remaining: "0" });
    expect((await search()).status).toBe(429);
    expect((await send("GET", `/v1/orgs/${org.organizationId}`, { token })).status).toBe(429);
  });

  it("limits requests without a valid token per client address, ignoring X-Forwarded-For unless the proxy is trusted", async () => {
    const direct = await limitedGateway({});
    const forwarded = (address: string) => ({ headers: { "x-forwarded-for": address } });
    // A refused token counts as no token; forged X-Forwarded-For headers change nothing.
    expect((await direct("GET", "/v1/user", forwarded("10.0.0.1"))).status).toBe(401);
    expect(
      (await direct("GET", "/v1/user", { headers: { authorization: "Bearer imp_0000000000000000000000000000", "x-forwarded-for": "10.0.0.2" } })).status,
    ).toBe(401);
    expect((await direct("GET", "/v1/user", forwarded("10.0.0.3"))).status).toBe(401);
    expect((await direct("GET", "/v1/user", forwarded("10.0.0.4"))).status).toBe(429);

    // Behind a trusted proxy (the tests' loopback), the right-most address it did not add itself is the client.
    const proxied = await limitedGateway({ TRUSTED_PROXIES: "127.0.0.1/8, ::1" });
    for (let request = 0; request < 3; request++) expect((await proxied("GET", "/v1/user", forwarded("203.0.113.7"))).status).toBe(401);
    expect((await proxied("GET", "/v1/user", forwarded("203.0.113.7"))).status).toBe(429);
    // What a client writes to the left of it is not believed; another client has its own budget.
    expect((await proxied("GET", "/v1/user", forwarded("198.51.100.1, 203.0.113.7"))).status).toBe(429);
    expect(limitHeaders(await proxied("GET", "/v1/user", forwarded("203.0.113.7, 198.51.100.1")))).toMatchObject({ status: 401, remaining: "2" });
  });

  it("shares one budget between gateway replicas through NATS", async () => {
    const natsUrl = await testNatsUrl();
    const [first, second] = [
      await limitedGateway({ NATS_URL: natsUrl, RATE_LIMIT_TOKEN_READS: "10" }),
      await limitedGateway({ NATS_URL: natsUrl, RATE_LIMIT_TOKEN_READS: "10" }),
    ];
    const read = (send: typeof first) => send("GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    for (let request = 0; request < 8; request++) expect((await read(first)).status).toBe(200);
    // Alone, the second replica would let 10 through; it learns what the first counted within a flush.
    let allowedBySecond = 0;
    await eventually(async () => {
      const response = await read(second);
      if (response.status === 200) allowedBySecond += 1;
      return response.status === 429;
    });
    expect(allowedBySecond).toBeLessThan(10);
    expect(allowedBySecond).toBeGreaterThan(0);
    // And the first replica learns what the second counted.
    await eventually(async () => (await read(first)).status === 429);
  });

  it("fails open when NATS is down: counts in the process, says so in the log, never answers 5xx for it", async () => {
    const logger = testLogger("gateway without NATS", { level: "warn", record: true });
    const gateway = await startGateway(
      loadGatewayConfig({ ...stack.upstreamEnv, IMPRINT_PORT: "0", NATS_URL: `nats://127.0.0.1:${await getFreePort()}`, RATE_LIMIT_TOKEN_READS: "3" }),
      { logger, clock: () => frozen },
    );
    gateways.push(gateway);
    const read = () => call({ ...stack, baseUrl: gateway.url }, "GET", `/v1/orgs/${org.organizationId}`, { token: org.owner.token });
    for (let request = 0; request < 3; request++) expect(limitHeaders(await read())).toMatchObject({ status: 200, limit: "3", remaining: String(2 - request) });
    expect((await read()).status).toBe(429);
    await eventually(() => Promise.resolve(logger.lines.some((line) => line.msg === "rate limits counted per replica: the shared counts cannot be reached")));
  });
});

describe("browsers", () => {
  const path = () => `/v1/orgs/${org.organizationId}`;
  const preflight = (origin: string, requestHeaders = "authorization, content-type, idempotency-key") =>
    call(stack, "OPTIONS", path(), {
      headers: { origin, "access-control-request-method": "PATCH", "access-control-request-headers": requestHeaders },
      notInOpenApi: "a CORS preflight",
    });
  const CORS_HEADERS = ["access-control-allow-origin", "access-control-allow-methods", "access-control-allow-headers", "access-control-expose-headers"];

  it("answers an allowed origin's preflight and requests, errors included, with what its page may send and read", async () => {
    const allowed = await preflight(APP_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(allowed.headers.get("access-control-allow-methods")?.split(", ")).toEqual(expect.arrayContaining(["GET", "POST", "PATCH", "PUT", "DELETE"]));
    expect(allowed.headers.get("access-control-allow-headers")?.toLowerCase().split(", ")).toEqual(
      expect.arrayContaining(["authorization", "content-type", "idempotency-key"]),
    );
    expect(Number(allowed.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(allowed.headers.get("vary")).toContain("Origin");
    // Tokens are bearer headers, never cookies: nothing is allowed with credentials.
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();

    for (const response of [
      await call(stack, "PATCH", path(), { token: org.owner.token, json: { title: "From a browser" }, headers: { origin: APP_ORIGIN } }),
      await call(stack, "GET", path(), { headers: { origin: APP_ORIGIN } }),
    ]) {
      expect(response.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
      expect(response.headers.get("access-control-expose-headers")?.split(", ")).toEqual(
        expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Location"]),
      );
      expect(response.headers.get("vary")).toContain("Origin");
    }
  });

  it("gives an origin not allowed no CORS header, its preflight included", async () => {
    const refused = await preflight("https://evil.example");
    for (const header of CORS_HEADERS) expect(refused.headers.get(header), header).toBeNull();
    const answer = await call(stack, "GET", path(), { token: org.owner.token, headers: { origin: "https://evil.example" } });
    expect(answer.status).toBe(200);
    for (const header of CORS_HEADERS) expect(answer.headers.get(header), header).toBeNull();
    expect(answer.headers.get("vary")).toContain("Origin");
    // A lookalike of the allowed origin is another origin.
    expect((await preflight(`${APP_ORIGIN}.evil.example`)).headers.get("access-control-allow-origin")).toBeNull();
    expect((await preflight("http://app.imprint.test")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("sends security headers with every answer: no page loads, runs or frames anything of the API's, JSON is never sniffed, HTTPS is kept", async () => {
    for (const response of [
      await call(stack, "GET", path(), { token: org.owner.token }),
      await call(stack, "GET", path()),
      await call(stack, "GET", "/v1/nowhere", { token: org.owner.token, notInOpenApi: "unknown route" }),
      await call(stack, "GET", "/healthz", { notInOpenApi: "Imprint's liveness probe" }),
    ]) {
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    }
  });
});
