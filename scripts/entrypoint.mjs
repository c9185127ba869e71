#!/usr/bin/env node
// Entry point of the container image (deploy/Dockerfile): one image, the process chosen by argument.
//   gateway | identity | content | collaboration    serve
//   migrate identity|content|collaboration          apply that service's pending migrations, then exit
// The image runs it as `node --import @imprint/runtime/telemetry/preload scripts/entrypoint.mjs …`,
// so tracing is set up before any instrumented module loads; the chosen entry runs in this process
// (no child to forward signals to).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname, "..");
const SERVICES = new Map([
  ["identity", "services/identity/dist/main.js"],
  ["content", "services/content/dist/main.js"],
  ["collaboration", "services/collaboration/dist/main.js"],
]);
const PROCESSES = new Map([["gateway", "gateway/dist/main.js"], ...SERVICES]);

const [command, ...rest] = process.argv.slice(2);
let entry;
let mode = [];
if (PROCESSES.has(command) && rest.length === 0) {
  entry = PROCESSES.get(command);
} else if (command === "migrate" && rest.length === 1 && SERVICES.has(rest[0])) {
  entry = SERVICES.get(rest[0]);
  mode = ["migrate"];
} else {
  process.stderr.write(
    `usage: <image> ${[...PROCESSES.keys()].join(" | ")}\n` +
      `       <image> migrate ${[...SERVICES.keys()].join(" | ")}\n` +
      (command === undefined ? "" : `unknown command: ${[command, ...rest].join(" ")}\n`),
  );
  process.exit(2);
}

// The entry reads its mode from argv exactly as when started directly: `node <entry> [migrate]`.
const file = join(ROOT, entry);
process.argv = [process.argv[0], file, ...mode];
await import(pathToFileURL(file).href);
