// `<data>/stack.json`: where a running stack's processes and addresses are, for the admin CLI.
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SERVICES, stackJsonKey } from "./hosting.mjs";

/** The content of `<data>/stack.json`, which the admin CLI reads to find a running stack. */
export function stackDescription(stack, pid = process.pid) {
  const description = {};
  for (const service of SERVICES) description[stackJsonKey(service)] = stack.grpcAddresses[service.name];
  description.gatewayUrl = stack.gatewayUrl;
  description.readerUrl = stack.readerUrl;
  // Where the app listens itself (people reach it through the gateway).
  description.appUrl = stack.appUrl;
  // The admin CLI's `events dead-letters` commands reach the stack's NATS.
  description.natsUrl = stack.infra.natsUrl;
  description.hosting = stack.hosting;
  description.replicas = stack.replicas;
  // The Node processes by name and current pid (the launcher rewrites the file when one is replaced).
  description.processes = Object.fromEntries(stack.processes.map((handle) => [handle.name, handle.pid]));
  // The launcher: SIGHUP restarts the stack's Node processes one at a time (`npm run admin -- restart`).
  description.pid = pid;
  return description;
}

let partialFiles = 0;
/** Writes `file` whole or not at all (a reader polling it never sees half of it). */
export async function writeFileAtomically(file, text) {
  const partial = `${file}.${process.pid}-${++partialFiles}.partial`;
  await writeFile(partial, text);
  await rename(partial, file);
}

export async function writeStackJson(dataDir, stack) {
  const file = join(dataDir, "stack.json");
  await writeFileAtomically(file, `${JSON.stringify(stackDescription(stack), null, 2)}\n`);
  return file;
}

export async function removeStackJson(dataDir) {
  await rm(join(dataDir, "stack.json"), { force: true });
}
