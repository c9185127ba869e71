import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";

// The preload is exercised the way services load it: `node --import <preload>` in a fresh
// process. It imports packages only, so Node runs it straight from source (type stripping).
const runtimeDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const preload = join(runtimeDir, "src", "telemetry", "preload.ts");

function runChild(script: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  // Start from a clean slate: only what the test sets decides whether spans are exported.
  for (const key of Object.keys(childEnv)) if (key.startsWith("OTEL_") && !(key in env)) delete childEnv[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", preload, "--input-type=module", "-e", script], { cwd: runtimeDir, env: childEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
  });

describe("telemetry preload", () => {
  it("creates spans without any exporter, so log lines and outgoing HTTP calls carry real trace ids", async () => {
    const result = await runChild(`
      import http from "node:http";
      import { trace } from "@opentelemetry/api";
      import { createLogger } from "./src/logger.ts";
      const logger = createLogger("child");
      const server = http.createServer((req, res) => { logger.info("request", { traceparent: req.headers.traceparent }); res.end("ok"); });
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      await trace.getTracer("child").startActiveSpan("work", async (span) => {
        logger.info("inside");
        await new Promise((resolve) => http.get("http://127.0.0.1:" + server.address().port + "/x", (res) => { res.resume(); res.on("end", resolve); }));
        span.end();
      });
      server.close();
    `);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [inside, request] = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(inside).toMatchObject({ msg: "inside", service: "child" });
    expect(inside!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(inside!.trace_id).not.toMatch(/^0+$/);
    // The http instrumentation continued the trace across the call, client and server side.
    expect(request!.traceparent).toMatch(new RegExp(`^00-${inside!.trace_id}-[0-9a-f]{16}-01$`));
    expect(request!.trace_id).toBe(inside!.trace_id);
  });

  it("answers what answerBeforeTracing takes before the request is emitted: no span, no listener; the rest as before", async () => {
    const result = await runChild(`
      import http from "node:http";
      import { trace } from "@opentelemetry/api";
      import { answerBeforeTracing } from "./src/telemetry/lifecycle.ts";
      const seen = [];
      const server = http.createServer((req, res) => { seen.push(["listener", req.url, Boolean(trace.getActiveSpan())]); res.end("listener"); });
      const remove = answerBeforeTracing(server, (req, res) => {
        if (req.url !== "/early") return false;
        seen.push(["early", req.url, Boolean(trace.getActiveSpan())]);
        res.end("early");
        return true;
      });
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      const get = (path) => fetch("http://127.0.0.1:" + server.address().port + path).then((res) => res.text());
      const bodies = [await get("/early"), await get("/other")];
      remove();
      bodies.push(await get("/early"));
      server.close();
      console.log(JSON.stringify({ seen, bodies }));
    `);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      seen: [
        ["early", "/early", false],
        ["listener", "/other", true],
        // Removed: the same request goes to the listeners again, with its span.
        ["listener", "/early", true],
      ],
      bodies: ["early", "listener", "listener"],
    });
  });

  it("reaches no collector by default (and does once an endpoint is configured)", async () => {
    // Records every outgoing TCP connection the SDK makes while flushing on shutdown.
    const script = `
      import net from "node:net";
      import { trace } from "@opentelemetry/api";
      import { shutdownTelemetry } from "./src/telemetry/lifecycle.ts";
      const attempts = [];
      const connect = net.Socket.prototype.connect;
      net.Socket.prototype.connect = function (...args) {
        const target = Array.isArray(args[0]) ? args[0][0] : args[0];
        attempts.push(Number(typeof target === "object" ? target.port : target));
        return connect.apply(this, args);
      };
      trace.getTracer("child").startSpan("quiet-work").end();
      await shutdownTelemetry();
      console.log(JSON.stringify(attempts));
    `;
    const quiet = await runChild(script);
    expect(quiet.code).toBe(0);
    expect(JSON.parse(quiet.stdout)).toEqual([]);
    const exporting = await runChild(script, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_TIMEOUT: "500" });
    expect(JSON.parse(exporting.stdout.trim().split("\n")[0]!)).toContain(9);
  });

  it("traces grpc, koa, http and pg calls made from ESM code", async () => {
    const result = await runChild(
      `
      import http from "node:http";
      import { Client, Metadata, Server, ServerCredentials, credentials } from "@grpc/grpc-js";
      import { HealthImplementation, service as healthService } from "grpc-health-check";
      import Koa from "koa";
      import Router from "@koa/router";
      import pg from "pg";
      import { trace } from "@opentelemetry/api";
      const server = new Server();
      new HealthImplementation({ "": "SERVING" }).addToServer(server);
      const port = await new Promise((resolve, reject) => server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
      const client = new Client("127.0.0.1:" + port, credentials.createInsecure());
      const check = healthService.Check;
      await new Promise((resolve, reject) => client.makeUnaryRequest(check.path, check.requestSerialize, check.responseDeserialize, { service: "" }, new Metadata(), (e, r) => (e ? reject(e) : resolve(r))));
      client.close();
      server.forceShutdown();
      const app = new Koa();
      const router = new Router();
      router.get("/things/:id", (ctx) => { ctx.body = "ok"; });
      app.use(router.routes());
      const web = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => web.once("listening", resolve));
      await new Promise((resolve) => http.get("http://127.0.0.1:" + web.address().port + "/things/7", (res) => { res.resume(); res.on("end", resolve); }));
      web.close();
      const db = new pg.Client({ connectionString: process.env.TEST_PG_URL });
      await db.connect();
      await trace.getTracer("test").startActiveSpan("handle request", async (span) => {
        await db.query("select 1");
        span.end();
      });
      await db.end();
    `,
      { OTEL_TRACES_EXPORTER: "console", TEST_PG_URL: inject("pgAdminUrl") },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("name: 'grpc.grpc.health.v1.Health/Check'");
    expect(result.stdout).toContain("name: 'router - /things/:id'");
    expect(result.stdout).toContain("name: 'GET /things/:id'");
    expect(result.stdout).toContain("name: '@opentelemetry/instrumentation-pg'");
    expect(result.stdout).toContain("select 1");
  });

  it("exports over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, flushing on shutdown", async () => {
    const received: { path: string | undefined; body: Buffer }[] = [];
    const collector = createServer((request, response) => {
      void readBody(request).then((body) => {
        received.push({ path: request.url, body });
        response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const result = await runChild(
        `
        import { trace } from "@opentelemetry/api";
        import { shutdownTelemetry } from "./src/telemetry/lifecycle.ts";
        trace.getTracer("child").startSpan("exported-work").end();
        // What runMain does before process.exit: without the flush the batch would be lost.
        await shutdownTelemetry();
        process.exit(0);
      `,
        { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: "imprint-telemetry-test" },
      );
      expect(result.code).toBe(0);
      const traces = received.filter((r) => r.path === "/v1/traces");
      expect(traces).toHaveLength(1);
      expect(traces[0]!.body.includes("exported-work")).toBe(true);
      expect(traces[0]!.body.includes("imprint-telemetry-test")).toBe(true);
      // Metrics and logs stay off unless asked for.
      expect(received.map((r) => r.path)).toEqual(["/v1/traces"]);
    } finally {
      collector.close();
    }
  });
});
