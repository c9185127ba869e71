import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAppConfig, startApp, type AppHandle } from "../src/index.js";

/** The app target on its own: probes, methods, the shell and assets as the gateway receives them. */
let app: AppHandle;

beforeAll(async () => {
  app = await startApp(loadAppConfig({ APP_PORT: "0", LOG_LEVEL: "warn", SHUTDOWN_DRAIN_MS: "0" }));
});
afterAll(() => app?.stop());

describe("the app target", () => {
  it("answers its probes and its metrics", async () => {
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${app.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("process_cpu");
  });

  it("answers the shell to HEAD without a body, and 405 with Allow to a write", async () => {
    const head = await fetch(`${app.url}/o/some-org/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
    const post = await fetch(`${app.url}/sign-in`, { method: "POST", body: "email=a" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(post.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("renders only with POST, and says so in the error shape when the API cannot be asked about the session", async () => {
    const read = await fetch(`${app.url}/_app/render`);
    expect(read.status).toBe(405);
    expect(read.headers.get("allow")).toBe("POST");
    expect(await read.json()).toEqual({ error: { code: 405, message: "A document is rendered with POST." } });
    const anonymous = await fetch(`${app.url}/_app/render`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    // APP_API_URL on a port nothing listens on: 503, never a render without a checked session.
    const closed = await startApp(loadAppConfig({ APP_PORT: "0", LOG_LEVEL: "error", APP_API_URL: "http://127.0.0.1:9" }));
    try {
      const answer = await fetch(`${closed.url}/_app/render`, { method: "POST", headers: { "content-type": "application/json", cookie: "s=x" }, body: "{}" });
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(503);
    } finally {
      await closed.stop();
    }
  });

  it("sends an asset uncompressed to a client that accepts no encoding", async () => {
    const html = await (await fetch(`${app.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const plain = await fetch(`${app.url}${script}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(Number(plain.headers.get("content-length"))).toBe((await plain.arrayBuffer()).byteLength);
  });

  it("turns /readyz to 503 while draining, still serving pages", async () => {
    const draining = await startApp(loadAppConfig({ APP_PORT: "0", LOG_LEVEL: "warn" }));
    const endDrain = new AbortController();
    const drained = draining.drain(endDrain.signal, 60_000);
    try {
      expect((await fetch(`${draining.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${draining.url}/`)).status).toBe(200);
    } finally {
      endDrain.abort();
      await drained;
      await draining.stop();
    }
  });
});
