// `npm run bench`: starts a throw-away stack (temporary data dir, free ports, loopback only) in each
// hosting, every target in one process, then one process per target; seeds one organization, measures
// each hosting's memory and gateway routes, then (split) the single-process baseline and the content,
// search, merge, Git, authoring, publishing, integration, reader, app and event-lag figures; then `npm start` from a
// clean clone in both hostings. Prints the comparison and writes bench/results/. Everything it
// started is stopped, whatever happens.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { prepare, REPO_ROOT, requireNode } from "./lib/setup.mjs";

await requireNode();
prepare({ quiet: true });
const stackLib = await import("./lib/stack.mjs");
const { measureHosting, runBenchmark, runGitOnly, writeResults } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "run.js")).href);
const { evaluateReplicasTargets } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "replicas-report.js")).href);
const { measureCopies } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "copies.js")).href);
const { evaluateRateLimiterTargets, measureRateLimiter } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "rate-limiter-report.js")).href);
const { seedOrganization } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "seed.js")).href);
const { formatReport } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "report.js")).href);
const { measureCleanStart } = await import(pathToFileURL(join(REPO_ROOT, "bench", "dist", "clean-start.js")).href);
const { getFreePort } = await import(pathToFileURL(join(REPO_ROOT, "services", "runtime", "dist", "infrastructure", "index.js")).href);

function positiveInt(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    console.error(`✖ ${name} must be an integer between 0 and ${max}, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

const settings = {
  connections: positiveInt("BENCH_CONNECTIONS", 50, 1000) || 50,
  durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
  warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
  members: positiveInt("BENCH_MEMBERS", 150, 10_000) || 150,
  authCacheTtlMs: positiveInt("AUTH_CACHE_TTL_MS", 5_000, 3_600_000),
  // The content figures: a space of BENCH_CONTENT_PAGES pages, driven at BENCH_CONTENT_CONNECTIONS
  // (0 pages skips them).
  content: {
    pages: positiveInt("BENCH_CONTENT_PAGES", 10_000, 20_000),
    connections: positiveInt("BENCH_CONTENT_CONNECTIONS", 32, 1000) || 32,
    durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
    warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
  },
};
// The search figures: BENCH_SEARCH_PAGES pages of 10 sections each (0 skips them), searched at
// BENCH_SEARCH_CONNECTIONS concurrent connections and at one.
settings.search = {
  pages: positiveInt("BENCH_SEARCH_PAGES", 10_000, 20_000),
  sectionsPerPage: 10,
  connections: positiveInt("BENCH_SEARCH_CONNECTIONS", 4, 1000) || 4,
  durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
  warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
};
// The merge figures: change requests touching 1, 100 and 1,000 pages of a BENCH_MERGE_PAGES-page
// space (a multiple of 100; 0 skips them).
settings.merge = { pages: Math.floor(positiveInt("BENCH_MERGE_PAGES", 10_000, 20_000) / 100) * 100, sizes: [] };
// Sizes the space can hold without touching a page twice (each size once, the largest twice).
settings.merge.sizes = [1, 100, 1_000].filter((size) => size * 4 <= settings.merge.pages);
if (settings.merge.pages === 0) delete settings.merge;
// The Git sync figures: import, re-import and export of a BENCH_GIT_PAGES-page repository served on
// loopback (0 skips them; they need private fetches, allowed on this throw-away stack for them).
// Then Git Sync both ways on that space: BENCH_GIT_ROUNDS pushes timed until the reader shows them,
// and as many merged change requests timed until the repository holds them. BENCH_GIT_ONLY=1 runs
// these figures alone on a split stack (nothing else; latest.md is left as it is).
settings.git = { pages: positiveInt("BENCH_GIT_PAGES", 1_000, 5_000), rounds: positiveInt("BENCH_GIT_ROUNDS", 20, 1000) || 20 };
if (settings.git.pages === 0) delete settings.git;
const gitOnly = positiveInt("BENCH_GIT_ONLY", 0, 1) === 1;
if (gitOnly && !settings.git) {
  console.error("✖ BENCH_GIT_ONLY=1 needs the Git figures (BENCH_GIT_PAGES above 0)");
  process.exit(1);
}
// The authoring figures: BENCH_AUTHORING_BATCHES batches of 50 changes on a change request of a
// BENCH_AUTHORING_PAGES-page space (0 pages skips them).
settings.authoring = { pages: positiveInt("BENCH_AUTHORING_PAGES", 10_000, 20_000), batches: positiveInt("BENCH_AUTHORING_BATCHES", 50, 1000) || 50 };
if (settings.authoring.pages === 0) delete settings.authoring;
// The published-site figures: GET …/published of a site of BENCH_PUBLISHING_SECTIONS sections × 4
// site-spaces at BENCH_PUBLISHING_CONNECTIONS connections, with GET /v1/orgs/{id} as reference (0 sections skips them).
settings.publishing = {
  sections: positiveInt("BENCH_PUBLISHING_SECTIONS", 50, 500),
  siteSpacesPerSection: 4,
  connections: positiveInt("BENCH_PUBLISHING_CONNECTIONS", 32, 1000) || 32,
  durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
  warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
};
if (settings.publishing.sections === 0) delete settings.publishing;
// The integration figures: POST …/render of the compat fixture's component at
// BENCH_INTEGRATION_CONNECTIONS connections with GET /v1/orgs/{id} as reference, then
// BENCH_INTEGRATION_REPEATS revisions each fanned out to BENCH_INTEGRATIONS installations (0 skips them).
settings.integration = {
  integrations: positiveInt("BENCH_INTEGRATIONS", 100, 1000),
  repeats: positiveInt("BENCH_INTEGRATION_REPEATS", 3, 20) || 3,
  connections: positiveInt("BENCH_INTEGRATION_CONNECTIONS", 16, 1000) || 16,
  durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
  warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
};
if (settings.integration.integrations === 0) delete settings.integration;
// The reader figures: BENCH_READER_PAGES pages of ~5,000 words published (0 skips them), each
// rendered once; one of them kept and driven at BENCH_READER_CONNECTIONS connections against a
// static node:http server answering the same bytes, then on a visitor-auth site with adaptive
// content; Lighthouse's audit of it (BENCH_READER_LIGHTHOUSE=0 skips the audit).
settings.reader = {
  pages: positiveInt("BENCH_READER_PAGES", 100, 2_000),
  connections: positiveInt("BENCH_READER_CONNECTIONS", 32, 1000) || 32,
  durationSeconds: positiveInt("BENCH_DURATION_S", 10, 300) || 10,
  warmupSeconds: positiveInt("BENCH_WARMUP_S", 2, 60),
  lighthouse: positiveInt("BENCH_READER_LIGHTHOUSE", 1, 1) === 1,
};
if (settings.reader.pages === 0) delete settings.reader;
// The app (issue 30): Lighthouse of the space page and the editor page of a BENCH_APP_PAGES-page
// space, signed in with a password, and the JavaScript the space page loads (0 skips it).
settings.app = { pages: positiveInt("BENCH_APP_PAGES", 50, 2_000) };
if (settings.app.pages === 0) delete settings.app;
// Event lag: BENCH_LAG_COMMITS one-page commits timed to searchable and to listed in the audit log
// while another organization's BENCH_LAG_PAGES-page import is indexed (0 pages skips it).
settings.eventLag = { pages: positiveInt("BENCH_LAG_PAGES", 10_000, 20_000), commits: positiveInt("BENCH_LAG_COMMITS", 20, 1000) || 20 };
if (settings.eventLag.pages === 0) delete settings.eventLag;
if (settings.search.pages === 0) delete settings.search;
if (settings.content.pages === 0) delete settings.content;
// `npm start` from a clean clone of this repository's HEAD, in both hostings (BENCH_CLEAN_START=0 skips it).
const cleanStart = positiveInt("BENCH_CLEAN_START", 1, 1) === 1;
// Split hosting with two copies of identity against one (BENCH_REPLICAS=0 skips it; Linux only, as copies are).
const replicasBench = positiveInt("BENCH_REPLICAS", process.platform === "linux" ? 1 : 0, 1) === 1;
// The rate limiter on against off on the split stack (BENCH_RATE_LIMITER=0 skips it).
const rateLimiterBench = positiveInt("BENCH_RATE_LIMITER", 1, 1) === 1;
// Rounds per gateway in that comparison and the copies', each half of BENCH_DURATION_S.
const COPIES_ROUNDS = positiveInt("BENCH_COPIES_ROUNDS", 3, 20) || 3;

/** Polls `probe` until it resolves true; throws naming `what` after `timeoutMs`. */
async function waitFor(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
// The request path is measured, not log I/O: every process (stack and baseline) logs warnings only,
// unless LOG_LEVEL says otherwise.
const env = {
  ...process.env,
  LOG_LEVEL: process.env.LOG_LEVEL || "warn",
  AUTH_CACHE_TTL_MS: String(settings.authCacheTtlMs),
  ...stackLib.RATE_LIMITS_OUT_OF_REACH,
};
delete env.IMPRINT_PUBLIC_URL;
// Git remotes on loopback, and the OpenAPI specification the reader's audited blocks page comes from.
if (settings.git || settings.reader?.lighthouse) env.IMPRINT_ALLOW_PRIVATE_FETCH = "true";
const log = (message) => console.log(`» ${message}`);

let stack = null;
let dataDir = null;
let exitCode = 0;
let stopping = false;
const stopStack = async () => {
  const [running, dir] = [stack, dataDir];
  stack = dataDir = null;
  await running?.stop().catch((error) => console.error(`stop failed: ${error.message}`));
  if (dir) await rm(dir, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.error(`\n${signal}: stopping the benchmark`);
    void stopStack().then(() => process.exit(130));
  });
}

/** A throw-away stack in `hosting` (`copiesOf`: copies of some targets), described the way the benchmark modules read it. */
async function startHosting(hosting, copiesOf = undefined) {
  dataDir = await mkdtemp(join(tmpdir(), "imprint-bench-"));
  await chmod(dataDir, 0o755);
  log(`starting the stack (${hosting} hosting) in ${dataDir}`);
  stack = await stackLib.startStack({
    dataDir,
    persistent: false,
    env,
    hosting,
    ...(copiesOf ? { copiesOf } : {}),
    gatewayPort: 0,
    natsUrl: process.env.NATS_URL || undefined,
    onLog: () => {},
  });
  stack.onUnexpectedExit((error) => {
    console.error(`✖ ${error.message}\n${error.lastLines.map((line) => `   ${line}`).join("\n")}`);
    stopping = true;
    void stopStack().then(() => process.exit(1));
  });
  return {
    hosting,
    gatewayUrl: stack.gatewayUrl,
    identityGrpcAddress: stack.grpcAddresses.identity,
    identityDatabaseUrl: stack.infra.databaseUrls.identity,
    ...(stack.grpcAddresses.content ? { content: { grpcAddress: stack.grpcAddresses.content, databaseUrl: stack.infra.databaseUrls.content } } : {}),
    readerUrl: stack.readerUrl,
    ...(stack.grpcAddresses.integration ? { integration: { databaseUrl: stack.infra.databaseUrls.integration } } : {}),
    pids: Object.fromEntries(stack.processes.map((p) => [p.name, p.pid])),
    env,
  };
}

/**
 * The single-organization read through the stack's gateway (its limiter on, limits out of reach)
 * and a second gateway beside it with RATE_LIMIT_ENABLED=false, in alternating rounds.
 */
async function measureRateLimiterCost(underTest) {
  log("the rate limiter: the stack's gateway (limiter on) against one with RATE_LIMIT_ENABLED=false, in alternating rounds");
  const offPort = await getFreePort();
  const offUrl = `http://127.0.0.1:${offPort}`;
  const offGateway = stackLib.spawnNodeProcess({
    name: "gateway (limiter off)",
    entry: stackLib.ENTRYPOINT,
    env: stack.processEnv("gateway", {
      IMPRINT_PORT: String(offPort),
      HTTP_REUSE_PORT: "false",
      RATE_LIMIT_ENABLED: "false",
      OTEL_SERVICE_NAME: "imprint-gateway",
    }),
  });
  try {
    await waitFor(() => stackLib.isGatewayReady(offUrl), 60_000, "the gateway without a limiter");
    const seeded = await seedOrganization(underTest.identityGrpcAddress, settings.members);
    const measured = await measureRateLimiter({
      onUrl: underTest.gatewayUrl,
      offUrl,
      path: `/v1/orgs/${seeded.organizationId}`,
      route: "GET /v1/orgs/{id}",
      token: seeded.token,
      connections: settings.connections,
      rounds: COPIES_ROUNDS,
      secondsPerRound: Math.max(2, Math.round(settings.durationSeconds / 2)),
      warmupSeconds: settings.warmupSeconds,
      pids: { ...underTest.pids, "gateway (limiter off)": offGateway.pid },
    });
    log(`         limiter on ${measured.limiterOn.requestsPerSecond.toFixed(0)} req/s, off ${measured.limiterOff.requestsPerSecond.toFixed(0)} req/s`);
    return measured;
  } finally {
    await offGateway.stop();
  }
}

try {
  if (!process.env.NATS_URL) await stackLib.ensureNatsServer({ log });
  if (gitOnly) {
    const { markdown, json } = await runGitOnly(await startHosting("split"), settings.git, log);
    console.log(`\n${markdown}`);
    console.log(`results: ${json}`);
    await stopStack();
    process.exit(0);
  }
  // Every target in one process: memory and the gateway routes, on a stack of its own.
  const oneProcess = await measureHosting(await startHosting("one-process"), settings, log);
  await stopStack();
  // One process per target, as the chart deploys it: the same, then everything else.
  const underTest = await startHosting("split");
  const report = await runBenchmark(underTest, { ...settings, publicUrl: stack.gatewayUrl }, log, { otherHostings: [oneProcess.measurement] });
  if (rateLimiterBench) {
    report.rateLimiter = await measureRateLimiterCost(underTest);
    report.checks.push(...evaluateRateLimiterTargets(report.rateLimiter));
  }
  await stopStack();
  // Split again with two copies of identity (every request of the single-organization read asks it):
  // does a second copy add throughput on these cores? One stack, two gateways: the stack's balances
  // over both copies, a second one calls the first copy only; short loads alternate between them.
  if (replicasBench) {
    log("split hosting with 2 copies of identity: a gateway balancing over both against one calling the first only, in alternating rounds");
    const copies = await startHosting("split", { identity: 2 });
    const oneCopyPort = await getFreePort();
    const oneCopyUrl = `http://127.0.0.1:${oneCopyPort}`;
    const firstCopy = stack.grpcAddresses.identity.split(",")[0];
    const oneCopyGateway = stackLib.spawnNodeProcess({
      name: "gateway (identity#1 only)",
      entry: stackLib.ENTRYPOINT,
      env: stack.processEnv("gateway", {
        IMPRINT_PORT: String(oneCopyPort),
        IDENTITY_GRPC_ADDRESS: firstCopy,
        HTTP_REUSE_PORT: "false",
        OTEL_SERVICE_NAME: "imprint-gateway",
      }),
    });
    try {
      await waitFor(() => stackLib.isGatewayReady(oneCopyUrl), 60_000, "the second gateway");
      const seeded = await seedOrganization(copies.identityGrpcAddress, settings.members);
      const measured = await measureCopies({
        severalUrl: copies.gatewayUrl,
        oneUrl: oneCopyUrl,
        path: `/v1/orgs/${seeded.organizationId}`,
        token: seeded.token,
        connections: settings.connections,
        rounds: COPIES_ROUNDS,
        secondsPerRound: Math.max(2, Math.round(settings.durationSeconds / 2)),
        warmupSeconds: settings.warmupSeconds,
        pids: { ...copies.pids, "gateway (identity#1 only)": oneCopyGateway.pid },
      });
      report.replicas = { target: "identity", copies: 2, route: "GET /v1/orgs/{id}", ...measured };
      log(`         one copy ${measured.oneCopy.requestsPerSecond.toFixed(0)} req/s, two copies ${measured.severalCopies.requestsPerSecond.toFixed(0)} req/s`);
    } finally {
      await oneCopyGateway.stop();
      await stopStack();
    }
    report.checks.push(...evaluateReplicasTargets(report.replicas));
  }
  if (cleanStart) {
    for (const measurement of report.hosting.hostings) {
      log(`npm start from a clean clone of ${REPO_ROOT} (${measurement.hosting} hosting): install, build, start`);
      measurement.cleanStart = await measureCleanStart({ repository: REPO_ROOT, hosting: measurement.hosting, port: await getFreePort() });
      log(`         ready after ${(measurement.cleanStart.totalMs / 1000).toFixed(1)} s`);
    }
  }
  const files = await writeResults(report);
  console.log(`\n${formatReport(report)}`);
  console.log(`results: ${files.json}\n         ${files.markdown}`);
  if (report.checks.some((check) => !check.passed)) console.log("some targets were missed (see the last table)");
} catch (error) {
  exitCode = 1;
  console.error(`✖ ${error.message}`);
  for (const line of error.lastLines ?? []) console.error(`   ${line}`);
  // What the stack said last often explains a failed request.
  for (const p of stack?.processes ?? []) {
    const lines = p.lastLines();
    if (lines.length) console.error(`last lines of ${p.name}:\n${lines.map((line) => `   ${line}`).join("\n")}`);
  }
} finally {
  if (!stopping) {
    stopping = true;
    await stopStack();
  }
}
process.exit(exitCode);
