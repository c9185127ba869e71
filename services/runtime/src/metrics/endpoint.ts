import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";
import { METRICS_CONTENT_TYPE, metricsText, startProcessMetrics } from "./registry.js";

/** The path Prometheus scrapes, on every port that serves metrics. */
export const METRICS_PATH = "/metrics";

/** Whether `request` asks for the metrics (GET or HEAD of /metrics, a query string allowed). */
export function isMetricsRequest(request: IncomingMessage): boolean {
  const url = request.url ?? "";
  return (url === METRICS_PATH || url.startsWith(`${METRICS_PATH}?`)) && (request.method === "GET" || request.method === "HEAD");
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice("Bearer ".length).trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Answers a metrics request with the process's whole registry (Prometheus text format), or 401
 * when `token` is set and the request does not carry it.
 */
export async function answerMetrics(request: IncomingMessage, response: ServerResponse, token: string | undefined): Promise<void> {
  startProcessMetrics();
  if (token !== undefined && !tokenMatches(request.headers.authorization, token)) {
    response.writeHead(401, { "Content-Type": "text/plain; charset=utf-8", "WWW-Authenticate": 'Bearer realm="metrics"', "Cache-Control": "no-store" });
    response.end("Unauthorized\n");
    return;
  }
  try {
    const text = await metricsText();
    response.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE, "Cache-Control": "no-store" });
    response.end(request.method === "HEAD" ? undefined : text);
  } catch (error) {
    response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
    response.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  port: number;
  /** Stops this user's share of the listener; the last one closes it. */
  close(): Promise<void>;
}

/** The metrics listeners of this process by `host:port` asked for, each shared by the targets asking for the same one. */
const listeners = new Map<string, { server: Server; port: number; users: number; closing?: Promise<void> }>();

/**
 * Serves /metrics on a port of its own (a service's METRICS_PORT; 0: a free one). Targets of one
 * process asking for the same host and port share one listener (there is one registry to serve);
 * other paths answer 404.
 */
export async function serveMetrics(options: { host: string; port: number; token?: string; logger: Logger }): Promise<MetricsListener> {
  startProcessMetrics();
  const key = `${options.host}:${options.port}`;
  let entry = listeners.get(key);
  if (!entry) {
    const server = createServer((request, response) => {
      if (isMetricsRequest(request)) {
        void answerMetrics(request, response, options.token);
        return;
      }
      response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
      response.end("Not found: metrics are at /metrics\n");
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(new Error(`cannot serve metrics on ${key} (${error.message}): set METRICS_PORT (per service: <SERVICE>_METRICS_PORT) to a free port`)),
      );
      server.listen({ host: options.host, port: options.port }, () => resolve());
    });
    entry = { server, port: (server.address() as AddressInfo).port, users: 0 };
    listeners.set(key, entry);
    options.logger.info("serving metrics", { url: `http://${hostForUrl(options.host)}:${entry.port}${METRICS_PATH}` });
  }
  entry.users += 1;
  const shared = entry;
  let closed = false;
  return {
    url: `http://${hostForUrl(options.host)}:${shared.port}${METRICS_PATH}`,
    port: shared.port,
    close: () => {
      if (closed) return shared.closing ?? Promise.resolve();
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return Promise.resolve();
      listeners.delete(key);
      shared.closing = new Promise<void>((resolve) => {
        shared.server.close(() => resolve());
        shared.server.closeAllConnections();
      });
      return shared.closing;
    },
  };
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
