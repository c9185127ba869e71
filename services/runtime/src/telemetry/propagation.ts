import { context, type Context } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

// W3C trace context explicitly (not the globally configured propagator): events are stored and
// replayed later, so their headers must have one well-known format whatever the process set up.
const w3c = new W3CTraceContextPropagator();

const recordSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};
const recordGetter = {
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
  get(carrier: Record<string, string>, key: string) {
    const found = Object.keys(carrier).find((k) => k.toLowerCase() === key);
    return found === undefined ? undefined : carrier[found];
  },
};

/** traceparent/tracestate of the active span; empty when there is none (or tracing is off). */
export function injectTraceHeaders(active: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  w3c.inject(active, carrier, recordSetter);
  return carrier;
}

/** The context described by W3C headers, on top of the active one. */
export function extractTraceContext(headers: Record<string, string>): Context {
  return w3c.extract(context.active(), headers, recordGetter);
}

/** Runs `fn` with the trace context carried by `headers` as the active context. */
export function withExtractedContext<T>(headers: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  return context.with(extractTraceContext(headers), fn);
}
