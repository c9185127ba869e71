import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The reader figures' reference: a plain node:http server answering every GET with the same bytes
 * (a page the reader rendered, read from STATIC_BODY_FILE) and STATIC_CONTENT_TYPE, as a static
 * file server would: no framework, no telemetry, nothing computed per request. Run as its own
 * process by bench/src/reader.ts (so it does not share the load generator's event loop); prints
 * `{"port":…}` once it listens, stops on SIGTERM.
 */
const bodyFile = process.env.STATIC_BODY_FILE;
if (!bodyFile) throw new Error("STATIC_BODY_FILE is not set");
const body = readFileSync(bodyFile);
const headers = {
  "content-type": process.env.STATIC_CONTENT_TYPE || "text/html; charset=utf-8",
  "content-length": String(body.length),
  "cache-control": "public, max-age=0, must-revalidate",
  etag: process.env.STATIC_ETAG || '"static"',
};

const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  response.writeHead(200, headers);
  response.end(request.method === "HEAD" ? undefined : body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
