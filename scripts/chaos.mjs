// `npm run chaos [-- --replicas] [-- --short] [-- --json <file>]`: the fault suite of
// scripts/lib/chaos/run.mjs on a throw-away split stack (loopback only), or with --replicas the one
// of scripts/lib/chaos/replicas.mjs on two copies of every target. Prints the table of figures against their targets and
// exits 1 when any figure misses its target (a loss, a double application, a diverged projection…).
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { prepare, requireNode } from "./lib/setup.mjs";

await requireNode();
const { values } = parseArgs({ options: { short: { type: "boolean" }, replicas: { type: "boolean" }, json: { type: "string" }, help: { type: "boolean" } } });
if (values.help) {
  console.log(`Usage: npm run chaos [-- --replicas] [-- --short] [-- --json <file>]

Starts a throw-away split stack (every target in its own process, embedded PostgreSQL and
nats-server, loopback only), runs write and read loops through the REST API, and one at a time kills
(-9) each service, nats-server and PostgreSQL for a while, pauses a process with an event in flight
and lets the supervisor restart the gateway; then audits outbox, streams, consumers and projections
exactly and prints the figures against their targets. --short: shorter outages (about 2-3 minutes);
the full run keeps the database down 60 s.

--replicas: two copies of every target (IMPRINT_REPLICAS=2), the same loops and audit; kills (-9)
one copy of each service and one of the gateway in turn while the other serves, pauses (SIGSTOP) a
content copy 5 s with events in flight and checks every projection is right again within 60 s, and
replaces every process in a rolling restart; counts each copy's gRPC calls (channelz). About 5
minutes; with --short (copies down 3 s instead of 10) about 3.

--json writes the whole report there. Exit 1 when a figure misses its target.`);
  process.exit(0);
}
prepare({ quiet: true });
const stackLib = await import("./lib/stack.mjs");
await stackLib.ensureNatsServer();
const { runChaos, formatReport } = await import("./lib/chaos/run.mjs");
const log = (line) => console.log(`» ${new Date().toISOString().slice(11, 19)} ${line}`);
try {
  const report = await runChaos({ short: Boolean(values.short), replicas: Boolean(values.replicas), log });
  console.log(`\n${formatReport(report)}`);
  if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exit(report.passed ? 0 : 1);
} catch (error) {
  console.error(`✖ chaos run failed: ${error instanceof Error ? error.message : String(error)}`);
  for (const line of error?.lastLines ?? []) console.error(`   ${line}`);
  process.exit(2);
}
