import { readdir, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { answerMetrics, closeHttpServer, createLogger, announceDrain, isMetricsRequest, startProcessMetrics, type Logger } from "@imprint/runtime/core";
import type { AppConfig } from "./config.js";
import { createRenderHandler } from "./render.js";

/** Where `vite build` writes the client (index.html and assets/), beside this module's dist/. */
export const CLIENT_DIR = fileURLToPath(new URL("../dist/client/", import.meta.url));

/**
 * Every answer's headers: scripts, styles, images, fonts and API calls from this origin only, no
 * inline script, never framed; no sniffing; the path (never the query) sent as Referer within the
 * origin only.
 */
export const APP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
};

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/** A built file with its precompressed copies (when the build made them). */
interface ClientFile {
  type: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

export interface AppHandle {
  /** Where this process listens, e.g. http://127.0.0.1:8070. */
  url: string;
  port: number;
  /** /readyz answers 503 at once while every request is still answered, for `ms` (default SHUTDOWN_DRAIN_MS) or until `signal` aborts. */
  drain(signal?: AbortSignal, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Reads dist/client into memory once: a few hundred kilobytes, served without touching the disk again. */
async function loadClient(dir: string): Promise<Map<string, ClientFile>> {
  const files = new Map<string, ClientFile>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    throw new Error(`the app's client is not built (${dir} is missing): run npm run build`);
  }
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.endsWith(".gz") || entry.name.endsWith(".br")) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/${relative(dir, path).split(sep).join("/")}`;
    const file: ClientFile = { type: TYPES[extname(entry.name)] ?? "application/octet-stream", identity: await readFile(path) };
    for (const [encoding, suffix] of [
      ["br", ".br"],
      ["gzip", ".gz"],
    ] as const) {
      try {
        file[encoding] = await readFile(`${path}${suffix}`);
      } catch {
        // Not every file is compressed (images, fonts).
      }
    }
    files.set(urlPath, file);
  }
  if (!files.has("/index.html")) throw new Error(`the app's client has no index.html in ${dir}: run npm run build`);
  return files;
}

/** The precompressed bytes the request accepts (brotli first), else the file itself. */
function send(request: IncomingMessage, response: ServerResponse, status: number, file: ClientFile, cacheControl: string): void {
  const accepted = String(request.headers["accept-encoding"] ?? "");
  const encoding = file.br && /\bbr\b/.test(accepted) ? "br" : file.gzip && /\bgzip\b/.test(accepted) ? "gzip" : undefined;
  const body = encoding ? file[encoding]! : file.identity;
  response.statusCode = status;
  response.setHeader("Content-Type", file.type);
  response.setHeader("Cache-Control", cacheControl);
  response.setHeader("Vary", "Accept-Encoding");
  if (encoding) response.setHeader("Content-Encoding", encoding);
  response.setHeader("Content-Length", body.length);
  response.end(request.method === "HEAD" ? undefined : body);
}

function answerText(request: IncomingMessage, response: ServerResponse, status: number, text: string): void {
  response.statusCode = status;
  response.setHeader("Content-Type", "text/plain; charset=utf-8");
  response.setHeader("Cache-Control", "no-store");
  response.end(request.method === "HEAD" ? undefined : text);
}

function hostForUrl(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The app's HTTP server: `/assets/…` are the client's hashed files (cached a year, immutable; an
 * unknown one is 404), every other GET is the HTML shell (never cached), which signs in and
 * routes in the browser; `POST /_app/render` renders a page's document as the reader does
 * (render.ts). The gateway forwards the app's paths here (GATEWAY_APP_URL), so the
 * browser sees one origin with the API.
 */
export async function startApp(config: AppConfig, options: { logger?: Logger; clientDir?: string } = {}): Promise<AppHandle> {
  const logger = options.logger ?? createLogger("app", { level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const files = await loadClient(options.clientDir ?? CLIENT_DIR);
  const shell = files.get("/index.html")!;
  let draining: Promise<void> | undefined;
  const render = createRenderHandler({
    apiUrl: config.APP_API_URL,
    bodyLimitBytes: config.APP_RENDER_BODY_LIMIT_BYTES,
    sessionCacheMs: config.APP_SESSION_CACHE_MS,
    logger,
  });

  const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    if (draining) response.setHeader("Connection", "close");
    if (isMetricsRequest(request)) {
      void answerMetrics(request, response, config.METRICS_TOKEN);
      return;
    }
    for (const [name, value] of Object.entries(APP_SECURITY_HEADERS)) response.setHeader(name, value);
    const path = (request.url ?? "/").split("?")[0]!;
    if (path === "/healthz") return answerText(request, response, 200, "ok\n");
    if (path === "/readyz") return answerText(request, response, draining ? 503 : 200, draining ? "draining\n" : "ready\n");
    if (path === "/_app/render") {
      void render(request, response);
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("Allow", "GET, HEAD");
      return answerText(request, response, 405, `Method ${request.method} is not allowed: the app's pages are read with GET\n`);
    }
    if (path.startsWith("/assets/")) {
      const file = files.get(path);
      if (!file) return answerText(request, response, 404, "No such asset\n");
      return send(request, response, 200, file, "public, max-age=31536000, immutable");
    }
    // Every other path is a page of the app: the shell decides in the browser what it shows.
    send(request, response, 200, shell, "no-cache");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: config.APP_PORT, host: config.APP_HOST, reusePort: config.HTTP_REUSE_PORT }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  startProcessMetrics();
  const port = (server.address() as AddressInfo).port;
  const url = `http://${hostForUrl(config.APP_HOST)}:${port}`;
  logger.info("app listening", { url, files: files.size });

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    drain: (signal?: AbortSignal, ms = config.SHUTDOWN_DRAIN_MS) => (draining ??= announceDrain(logger, ms, signal)),
    stop: () => (stopping ??= closeHttpServer(server, config.SHUTDOWN_GRACE_MS)),
  };
}
