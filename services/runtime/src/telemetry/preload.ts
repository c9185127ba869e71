/**
 * Tracing preload, loaded before the service's own code:
 *   node --import @imprint/runtime/telemetry/preload dist/main.js
 *
 * Spans are always created (so every log line carries a real trace id), but they leave the
 * process only when an exporter is configured with OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER. Nothing tries to reach a collector
 * by default, and the OpenTelemetry SDK's exporters are not even loaded then. Imports packages
 * only, so it also runs straight from source.
 */
import { register } from "node:module";
import { register as registerInstrumentationHooks, supportsSyncHooks } from "import-in-the-middle/register-hooks.mjs";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { registerInstrumentations, type Instrumentation } from "@opentelemetry/instrumentation";
import { NoopSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { KoaInstrumentation, KoaLayerType } from "@opentelemetry/instrumentation-koa";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";

// ESM imports are only patched through the import-in-the-middle hook; without it the grpc and koa
// spans are missing. The hook is limited to the instrumented modules: wrapping every ESM module
// (MikroORM, NATS, ...) roughly doubled each process's memory. Node ≥ 24.11.1 runs the hook
// in-thread (registerHooks); older versions fall back to the off-thread loader.
const INSTRUMENTED_MODULES = ["@grpc/grpc-js", "koa", "@koa/router", "pg", "pg-pool", "http", "https"];
if (supportsSyncHooks()) {
  registerInstrumentationHooks({ include: INSTRUMENTED_MODULES });
} else {
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: INSTRUMENTED_MODULES } });
}

const env = process.env;
const set = (name: string) => (env[name] ?? "").trim() !== "";

const instrumentations = (): Instrumentation[] => [
  new HttpInstrumentation(),
  new GrpcInstrumentation(),
  // One span per route, not per middleware: the middleware spans cost ~10% of gateway throughput
  // and carry nothing the route and HTTP spans do not.
  new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
  // Pool checkouts are not worth a span each; queries are.
  new PgInstrumentation({ ignoreConnectSpans: true, requireParentSpan: true }),
];

/**
 * Anything that asks the SDK to leave the process or to be configured from the environment (an
 * exporter, a sampler, propagators, resource attributes) gets the whole NodeSDK, which reads them
 * all. Otherwise the process only needs spans for its own log lines and outgoing calls: a tracer
 * provider with the same instrumentations, without NodeSDK's exporters, metrics and logs SDKs
 * (about 27 MB less RSS in every process).
 */
const configured = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_LOGS_EXPORTER",
  "OTEL_TRACES_SAMPLER",
  "OTEL_PROPAGATORS",
  "OTEL_RESOURCE_ATTRIBUTES",
].some(set);

async function startFullSdk(): Promise<() => Promise<void>> {
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const exportTraces = set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || set("OTEL_TRACES_EXPORTER");
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || "imprint",
    // Without an explicit processor the SDK would export to localhost:4318 by default.
    ...(exportTraces ? {} : { spanProcessors: [new NoopSpanProcessor()] }),
    // Metrics and logs are not exported unless asked for explicitly.
    ...(set("OTEL_METRICS_EXPORTER") ? {} : { metricReaders: [] }),
    ...(set("OTEL_LOGS_EXPORTER") ? {} : { logRecordProcessors: [] }),
    instrumentations: instrumentations(),
  });
  sdk.start();
  return () => sdk.shutdown();
}

function startLocalTracing(): () => Promise<void> {
  // What NodeSDK registers by default: always-on sampling (parent-based), W3C trace context and
  // baggage, the async-local-storage context manager.
  const provider = new TracerProvider({ spanProcessors: [new NoopSpanProcessor()] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const disable = registerInstrumentations({ instrumentations: instrumentations(), tracerProvider: provider });
  return async () => {
    disable();
    await provider.shutdown();
  };
}

const shutdown = configured ? await startFullSdk() : startLocalTracing();

let shuttingDown: Promise<void> | undefined;
/** Flushes and stops the SDK once; `runMain` calls it (through the global hook) before exiting. */
function shutdownTelemetry(): Promise<void> {
  shuttingDown ??= shutdown().catch((error: unknown) => {
    process.stderr.write(`telemetry shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
  });
  return shuttingDown;
}
(globalThis as Record<symbol, unknown>)[Symbol.for("imprint.telemetry.shutdown")] = shutdownTelemetry;
// A process that simply runs out of work also flushes its spans.
process.once("beforeExit", () => void shutdownTelemetry());
