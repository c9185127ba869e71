import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus, platform, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { runLoad, type LoadResult } from "./load.js";
import { runContentBenchmark, type ContentBenchmarkSettings } from "./content.js";
import { evaluateContentTargets, type ContentReport } from "./content-report.js";
import { runSearchBenchmark, type SearchBenchmarkSettings } from "./search.js";
import { runMergeBenchmark, type MergeBenchmarkSettings } from "./merge.js";
import { evaluateMergeTargets, type MergeReport } from "./merge-report.js";
import { runGitBenchmark, type GitBenchmarkSettings } from "./git.js";
import { evaluateGitTargets, formatGitReport, type GitReport } from "./git-report.js";
import { runAuthoringBenchmark, type AuthoringBenchmarkSettings } from "./authoring.js";
import { evaluateAuthoringTargets, type AuthoringReport } from "./authoring-report.js";
import { runPublishingBenchmark, type PublishingBenchmarkSettings } from "./publishing.js";
import { evaluatePublishingTargets, type PublishingReport } from "./publishing-report.js";
import { runIntegrationBenchmark, type IntegrationBenchmarkSettings } from "./integration.js";
import { evaluateIntegrationTargets, type IntegrationReport } from "./integration-report.js";
import { runReaderBenchmark, type ReaderBenchmarkSettings } from "./reader.js";
import { evaluateReaderTargets, type ReaderReport } from "./reader-report.js";
import { runAppBenchmark, type AppBenchmarkSettings } from "./app.js";
import { evaluateAppTargets, type AppReport } from "./app-report.js";
import { evaluateSearchTargets, type SearchReport } from "./search-report.js";
import { runEventLagBenchmark, type EventLagSettings } from "./event-lag.js";
import { evaluateEventLagTargets, type EventLagReport } from "./event-lag-report.js";
import { evaluateHostingTargets, type HostingMeasurement, type HostingName } from "./hosting-report.js";
import { evaluateTargets, formatReport, type BenchmarkReport, type RouteMeasurement, type SectionPeaks } from "./report.js";
import { seedOrganization } from "./seed.js";

const BENCH_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO_ROOT = join(BENCH_ROOT, "..");

/** The running Imprint stack under test (started by scripts/bench.mjs through scripts/lib/stack.mjs). */
export interface StackUnderTest {
  /** Every target in one process, or one process per target. */
  hosting: HostingName;
  gatewayUrl: string;
  identityGrpcAddress: string;
  /** The identity database, which the baseline reads directly. */
  identityDatabaseUrl: string;
  /** Process ids whose RSS is reported, e.g. { gateway: 123, identity: 456 } or { imprint: 789 }. */
  pids: Record<string, number>;
  /** Base environment for the baseline process (same telemetry settings as the stack). */
  env: Record<string, string | undefined>;
  /** The content service, when the stack runs it: its gRPC address (editing API) and database. */
  content?: { grpcAddress: string; databaseUrl: string };
  /** The reader, when the stack hosts it: where published sites are read (`urls.published` are built on it). */
  readerUrl?: string;
  /** The integration service, when the stack runs it: its database (deliveries are counted there). */
  integration?: { databaseUrl: string };
}

export interface BenchmarkSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  members: number;
  authCacheTtlMs: number;
  /** Public base URL both servers put in `urls`, so their bodies are identical. */
  publicUrl: string;
  /** The content benchmark's settings; absent to skip it. */
  content?: ContentBenchmarkSettings;
  /** The search benchmark's settings; absent to skip it. */
  search?: SearchBenchmarkSettings;
  /** The merge benchmark's settings; absent to skip it. */
  merge?: MergeBenchmarkSettings;
  /** The Git sync benchmark's settings (the stack must allow private fetches and host the reader); absent to skip it. */
  git?: GitBenchmarkSettings;
  /** The authoring benchmark's settings; absent to skip it. */
  authoring?: AuthoringBenchmarkSettings;
  /** The published-site benchmark's settings; absent to skip it. */
  publishing?: PublishingBenchmarkSettings;
  /** The integration figures' settings (render, fan-out); absent to skip them. */
  integration?: IntegrationBenchmarkSettings;
  /** The reader benchmark's settings; absent to skip it. */
  reader?: ReaderBenchmarkSettings;
  /** The event-lag figures' settings; absent to skip them. */
  eventLag?: EventLagSettings;
  /** The app's figures (Lighthouse of the space and editor pages, signed in); absent to skip them. */
  app?: AppBenchmarkSettings;
}

export type Log = (message: string) => void;

async function procStatusBytes(pid: number, field: "VmHWM" | "VmRSS"): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  const match = status?.match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m"));
  return match?.[1] ? Number(match[1]) * 1024 : null;
}

/** Peak resident set size of a process in bytes (VmHWM in /proc), or null when unavailable. */
export function peakRssBytes(pid: number): Promise<number | null> {
  return procStatusBytes(pid, "VmHWM");
}

/** Current resident set size of a process in bytes (VmRSS in /proc), or null when unavailable. */
export function rssBytes(pid: number): Promise<number | null> {
  return procStatusBytes(pid, "VmRSS");
}

/** CPU time a process has used (user + system, /proc/<pid>/stat), in seconds, or null when unavailable. */
async function cpuSeconds(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields ? (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND : null;
}

/** Busy CPU time of the whole machine (every core: /proc/stat's cpu line without idle and iowait), in seconds. */
async function machineBusySeconds(): Promise<number | null> {
  const stat = await readFile("/proc/stat", "utf8").catch(() => null);
  const values = stat
    ?.match(/^cpu\s+(.+)$/m)?.[1]
    ?.split(/\s+/)
    .map(Number);
  if (!values) return null;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = values;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: the unit of /proc's CPU times (100 on Linux everywhere). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Where the cores went while `work` ran: CPU seconds per Imprint process, this benchmark process
 * (the load generator), and everything else (PostgreSQL, NATS, the rest of the machine).
 */
export async function cpuProfile<T>(pids: Record<string, number>, work: () => Promise<T>): Promise<{ value: T; cpuSeconds: Record<string, number> }> {
  const before = { processes: await eachProcess(pids, cpuSeconds), self: process.cpuUsage(), machine: await machineBusySeconds() };
  const value = await work();
  const after = { processes: await eachProcess(pids, cpuSeconds), self: process.cpuUsage(before.self), machine: await machineBusySeconds() };
  const used: Record<string, number> = {};
  for (const [name, seconds] of Object.entries(after.processes)) {
    const start = before.processes[name];
    if (seconds !== null && start !== null && start !== undefined) used[name] = seconds - start;
  }
  used["load generator (this process)"] = (after.self.user + after.self.system) / 1e6;
  if (before.machine !== null && after.machine !== null) {
    const listed = Object.values(used).reduce((sum, seconds) => sum + seconds, 0);
    used["everything else (PostgreSQL, NATS, …)"] = Math.max(0, after.machine - before.machine - listed);
  }
  return { value, cpuSeconds: used };
}

async function eachProcess(pids: Record<string, number>, read: (pid: number) => Promise<number | null>): Promise<Record<string, number | null>> {
  const values: Record<string, number | null> = {};
  for (const [name, pid] of Object.entries(pids)) values[name] = await read(pid);
  return values;
}

/** How long a freshly started stack is left alone before its idle RSS is read (start-up work settles). */
const IDLE_SETTLE_MS = 5_000;

/** The routes every hosting is loaded on, for one seeded organization. */
function gatewayRoutes(organizationId: string) {
  return [
    { route: "GET /v1/orgs/{id}", path: `/v1/orgs/${organizationId}` },
    { route: "GET /v1/orgs/{id}/members?limit=100", path: `/v1/orgs/${organizationId}/members?limit=100` },
  ];
}

const describeLoad = (result: LoadResult) =>
  `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms${result.non2xx + result.errors ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ""}`;

/**
 * The figures every hosting gets, on a freshly started stack: its idle RSS, then the seeded
 * organization's routes under load through the gateway, then each process's peak RSS.
 */
export async function measureHosting(
  stack: StackUnderTest,
  settings: Pick<BenchmarkSettings, "members" | "connections" | "durationSeconds" | "warmupSeconds">,
  log: Log,
): Promise<{ measurement: HostingMeasurement; seeded: Awaited<ReturnType<typeof seedOrganization>> }> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const idleRssBytes = await eachProcess(stack.pids, rssBytes);
  log(`${stack.hosting} hosting: seeding one organization with ${settings.members} members`);
  const seeded = await seedOrganization(stack.identityGrpcAddress, settings.members);
  const routes: HostingMeasurement["routes"] = [];
  for (const { route, path } of gatewayRoutes(seeded.organizationId)) {
    log(`imprint (${stack.hosting}) ${route}: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s`);
    const { value: result, cpuSeconds } = await cpuProfile(stack.pids, () =>
      runLoad({
        url: stack.gatewayUrl + path,
        token: seeded.token,
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
      }),
    );
    log(`         ${describeLoad(result)}`);
    routes.push({ route, result, cpuSeconds });
  }
  const peaks = await eachProcess(stack.pids, peakRssBytes);
  return { measurement: { hosting: stack.hosting, idleRssBytes, routes, peakRssBytes: peaks }, seeded };
}

async function getJson(url: string, token: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** A list body without its opaque cursor, which legitimately differs between two implementations. */
function comparable(body: unknown): unknown {
  if (body && typeof body === "object" && "next" in body) {
    const { next, ...rest } = body as { next?: unknown };
    return { ...rest, hasNext: next !== undefined };
  }
  return body;
}

/**
 * The baseline is only a fair comparison if it answers exactly what the gateway answers: same
 * status and same JSON for each benchmarked route.
 */
export async function assertSameAnswers(routes: { route: string; path: string }[], imprintUrl: string, baselineUrl: string, token: string): Promise<void> {
  for (const { route, path } of routes) {
    const [ours, theirs] = await Promise.all([getJson(imprintUrl + path, token), getJson(baselineUrl + path, token)]);
    if (ours.status !== 200) throw new Error(`${route}: the gateway answered ${ours.status}: ${JSON.stringify(ours.body)}`);
    if (theirs.status !== ours.status || !isDeepStrictEqual(comparable(ours.body), comparable(theirs.body))) {
      const show = (body: unknown) => JSON.stringify(body).slice(0, 600);
      throw new Error(`${route}: the baseline's answer differs from the gateway's\n  gateway:  ${show(ours.body)}\n  baseline: ${show(theirs.body)}`);
    }
  }
}

export interface BaselineProcess {
  url: string;
  pid: number;
  lastLines(): string[];
  stop(): Promise<void>;
}

/**
 * Starts bench/dist/baseline/main.js as its own process (with the same telemetry preload as the
 * services): the baseline, or with `reference: "floor"` the floor.
 */
export async function startBaselineProcess(options: {
  reference?: "baseline" | "floor";
  databaseUrl: string;
  publicUrl: string;
  authCacheTtlMs: number;
  env: Record<string, string | undefined>;
}): Promise<BaselineProcess> {
  const port = await getFreePort();
  const child = spawn(process.execPath, ["--import", "@imprint/runtime/telemetry/preload", join(BENCH_ROOT, "dist", "baseline", "main.js")], {
    cwd: REPO_ROOT,
    env: {
      ...options.env,
      BENCH_REFERENCE: options.reference ?? "baseline",
      DATABASE_URL: options.databaseUrl,
      BASELINE_PORT: String(port),
      IMPRINT_PUBLIC_URL: options.publicUrl,
      AUTH_CACHE_TTL_MS: String(options.authCacheTtlMs),
      OTEL_SERVICE_NAME: `imprint-${options.reference ?? "baseline"}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 40) lines.shift();
  };
  createInterface({ input: child.stdout }).on("line", keep);
  createInterface({ input: child.stderr }).on("line", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${options.reference ?? "baseline"} exited with code ${child.exitCode}:\n${lines.join("\n")}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the ${options.reference ?? "baseline"} was not ready within 30 s:\n${lines.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid ?? 0, lastLines: () => [...lines], stop };
}

/**
 * The floor (bench/src/baseline/floor.ts) on the single-organization read, after checking it
 * answers what the gateway answers: what the machine can do, for every figure to be read against.
 */
async function measureFloor(
  stack: StackUnderTest,
  settings: BenchmarkSettings,
  route: { route: string; path: string },
  token: string,
  load: (url: string) => Promise<LoadResult>,
  log: Log,
): Promise<{ route: string; result: LoadResult }> {
  const floor = await startBaselineProcess({
    reference: "floor",
    databaseUrl: stack.identityDatabaseUrl,
    publicUrl: settings.publicUrl,
    authCacheTtlMs: settings.authCacheTtlMs,
    env: stack.env,
  });
  try {
    await assertSameAnswers([route], stack.gatewayUrl, floor.url, token);
    log(`floor ${route.route}: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s`);
    const result = await load(floor.url + route.path);
    log(`         ${describeLoad(result)}`);
    return { route: route.route, result };
  } finally {
    await floor.stop();
  }
}

/**
 * Measures `stack` as every hosting is measured (measureHosting), then the baseline on the same
 * routes, then the content, search, merge, Git, authoring, publishing, integration, reader and event-lag figures; returns the report (nothing is written here).
 * `otherHostings` are hostings measured before in the same run, compared with this one and the baseline.
 */
export async function runBenchmark(
  stack: StackUnderTest,
  settings: BenchmarkSettings,
  log: Log,
  options: { otherHostings?: HostingMeasurement[] } = {},
): Promise<BenchmarkReport> {
  const startedAt = new Date().toISOString();
  const { measurement, seeded } = await measureHosting(stack, settings, log);
  const routes = gatewayRoutes(seeded.organizationId);
  const load = (url: string) =>
    runLoad({ url, token: seeded.token, connections: settings.connections, durationSeconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds });

  const baseline = await startBaselineProcess({
    databaseUrl: stack.identityDatabaseUrl,
    publicUrl: settings.publicUrl,
    authCacheTtlMs: settings.authCacheTtlMs,
    env: stack.env,
  });
  try {
    await assertSameAnswers(routes, stack.gatewayUrl, baseline.url, seeded.token);
    log("the baseline answers exactly what the gateway answers");

    const measured: RouteMeasurement[] = [];
    for (const [index, { route, path }] of routes.entries()) {
      log(`baseline ${route}: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s`);
      const result = await load(baseline.url + path);
      log(`         ${describeLoad(result)}`);
      measured.push({ route, imprint: measurement.routes[index]!.result, baseline: result });
    }
    const floor = await measureFloor(stack, settings, routes[0]!, seeded.token, load, log);
    const hosting = {
      hostings: [...(options.otherHostings ?? []), measurement],
      baseline: measured.map(({ route, baseline: result }) => ({ route, result })),
      floor,
    };

    // Each process's peak RSS after each part of the run: VmHWM only grows, so the part after
    // which a process's figure jumps is the part that grew it.
    const peaksBySection: SectionPeaks[] = [];
    const notePeaks = async (section: string) => peaksBySection.push({ section, peakRssBytes: await eachProcess(stack.pids, peakRssBytes) });
    await notePeaks("routes");

    let content: ContentReport | undefined;
    if (stack.content && settings.content) {
      const figures = await runContentBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          contentGrpcAddress: stack.content.grpcAddress,
          contentDatabaseUrl: stack.content.databaseUrl,
        },
        settings.content,
        log,
      );
      content = { settings: settings.content, figures };
      await notePeaks("content");
    }
    let search: SearchReport | undefined;
    if (stack.content && settings.search) {
      const figures = await runSearchBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          contentGrpcAddress: stack.content.grpcAddress,
          contentDatabaseUrl: stack.content.databaseUrl,
        },
        settings.search,
        log,
      );
      search = { settings: settings.search, figures };
      await notePeaks("search");
    }

    let merge: MergeReport | undefined;
    if (stack.content && settings.merge) {
      const figures = await runMergeBenchmark(
        { gatewayUrl: stack.gatewayUrl, identityGrpcAddress: stack.identityGrpcAddress, contentGrpcAddress: stack.content.grpcAddress },
        settings.merge,
        log,
      );
      merge = { settings: settings.merge, figures };
      await notePeaks("merge");
    }

    let git: GitReport | undefined;
    if (stack.content && stack.readerUrl && settings.git) {
      git = await measureGit(stack, settings.git, log);
      await notePeaks("git");
    }
    let authoring: AuthoringReport | undefined;
    if (stack.content && settings.authoring) {
      const figures = await runAuthoringBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          contentGrpcAddress: stack.content.grpcAddress,
          contentDatabaseUrl: stack.content.databaseUrl,
        },
        settings.authoring,
        log,
      );
      authoring = { settings: settings.authoring, figures };
      await notePeaks("authoring");
    }

    let publishing: PublishingReport | undefined;
    if (stack.content && settings.publishing) {
      const figures = await runPublishingBenchmark({ gatewayUrl: stack.gatewayUrl, identityGrpcAddress: stack.identityGrpcAddress }, settings.publishing, log);
      publishing = { settings: settings.publishing, figures };
      await notePeaks("publishing");
    }

    let integration: IntegrationReport | undefined;
    if (stack.content && stack.integration && settings.integration) {
      const figures = await runIntegrationBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          contentGrpcAddress: stack.content.grpcAddress,
          integrationDatabaseUrl: stack.integration.databaseUrl,
        },
        settings.integration,
        log,
      );
      integration = { settings: settings.integration, figures };
      await notePeaks("integration");
    }

    let reader: ReaderReport | undefined;
    if (stack.content && stack.readerUrl && settings.reader) {
      const figures = await runReaderBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          readerUrl: stack.readerUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          lighthouseReportPath: join(BENCH_ROOT, "results", `lighthouse-${resultsStamp(startedAt)}.html`),
        },
        settings.reader,
        log,
      );
      reader = { settings: settings.reader, figures };
      await notePeaks("reader");
    }

    let app: AppReport | undefined;
    if (stack.content && settings.app) {
      const figures = await runAppBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          lighthouseReportPath: join(BENCH_ROOT, "results", `lighthouse-${resultsStamp(startedAt)}.html`),
        },
        settings.app,
        log,
      );
      app = { settings: settings.app, figures };
      await notePeaks("app");
    }

    let eventLag: EventLagReport | undefined;
    if (stack.content && settings.eventLag) {
      const figures = await runEventLagBenchmark(
        {
          gatewayUrl: stack.gatewayUrl,
          identityGrpcAddress: stack.identityGrpcAddress,
          contentGrpcAddress: stack.content.grpcAddress,
          contentDatabaseUrl: stack.content.databaseUrl,
        },
        settings.eventLag,
        log,
      );
      eventLag = { settings: settings.eventLag, figures };
      await notePeaks("eventLag");
    }

    const peak: Record<string, number | null> = {};
    for (const [name, pid] of Object.entries(stack.pids)) peak[name] = await peakRssBytes(pid);
    peak.baseline = await peakRssBytes(baseline.pid);

    const cpu = cpus();
    return {
      startedAt,
      settings: {
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
        members: settings.members,
        authCacheTtlMs: settings.authCacheTtlMs,
      },
      machine: {
        node: process.versions.node,
        platform: `${platform()} ${release()}`,
        cpus: cpu.length,
        cpuModel: cpu[0]?.model.trim() ?? "unknown",
        totalMemoryBytes: totalmem(),
      },
      routes: measured,
      peakRssBytes: peak,
      peaksBySection,
      hosting,
      checks: [
        ...evaluateTargets(measured, peak),
        ...evaluateHostingTargets(hosting),
        ...(content ? evaluateContentTargets(content.figures) : []),
        ...(search ? evaluateSearchTargets(search.figures) : []),
        ...(merge ? evaluateMergeTargets(merge.figures) : []),
        ...(git ? evaluateGitTargets(git.figures) : []),
        ...(authoring ? evaluateAuthoringTargets(authoring.figures) : []),
        ...(publishing ? evaluatePublishingTargets(publishing.figures) : []),
        ...(integration ? evaluateIntegrationTargets(integration.figures) : []),
        ...(reader ? evaluateReaderTargets(reader.figures) : []),
        ...(app ? evaluateAppTargets(app.figures) : []),
        ...(eventLag ? evaluateEventLagTargets(eventLag.figures) : []),
      ],
      ...(content ? { content } : {}),
      ...(search ? { search } : {}),
      ...(merge ? { merge } : {}),
      ...(git ? { git } : {}),
      ...(authoring ? { authoring } : {}),
      ...(publishing ? { publishing } : {}),
      ...(integration ? { integration } : {}),
      ...(reader ? { reader } : {}),
      ...(app ? { app } : {}),
      ...(eventLag ? { eventLag } : {}),
    };
  } finally {
    await baseline.stop();
  }
}

/** The Git sync figures on `stack` (which must run content and the reader). */
async function measureGit(stack: StackUnderTest, settings: GitBenchmarkSettings, log: Log): Promise<GitReport> {
  if (!stack.readerUrl) throw new Error("git: the stack does not host the reader");
  const figures = await runGitBenchmark(
    { gatewayUrl: stack.gatewayUrl, identityGrpcAddress: stack.identityGrpcAddress, readerUrl: stack.readerUrl },
    settings,
    log,
  );
  return { settings, figures };
}

/**
 * `BENCH_GIT_ONLY=1`: the Git sync figures alone on `stack` (no hosting, baseline or other
 * section), written to bench/results/<timestamp>-git.json; answers the Markdown of the Git section
 * with its targets. bench/results/latest.md, the last whole run's, is left as it is.
 */
export async function runGitOnly(
  stack: StackUnderTest,
  settings: GitBenchmarkSettings,
  log: Log,
  directory = join(BENCH_ROOT, "results"),
): Promise<{ markdown: string; json: string }> {
  const startedAt = new Date().toISOString();
  const git = await measureGit(stack, settings, log);
  const checks = evaluateGitTargets(git.figures);
  await mkdir(directory, { recursive: true });
  const json = join(directory, `${resultsStamp(startedAt)}-git.json`);
  await writeFile(json, `${JSON.stringify({ startedAt, git, checks }, null, 2)}\n`);
  const rows = checks.map((check) => `| ${check.name} | ${check.detail} | ${check.passed ? "pass" : "**FAIL**"} |`);
  const targets = rows.length > 0 ? ["", "| target | measured | |", "|---|---:|---|", ...rows] : [];
  const markdown = [formatGitReport(git).trimEnd(), ...targets, ""].join("\n");
  return { markdown, json };
}

/** A run's start as its results' file names say it: ISO 8601 basic-style time (no colons), valid as a file name everywhere. */
export function resultsStamp(startedAt: string): string {
  return startedAt.replace(/[:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** Writes bench/results/<timestamp>.json and bench/results/latest.md (the reader's Lighthouse report, lighthouse-<timestamp>.html, is written during the run); returns their paths. */
export async function writeResults(report: BenchmarkReport, directory = join(BENCH_ROOT, "results")): Promise<{ json: string; markdown: string }> {
  await mkdir(directory, { recursive: true });
  const json = join(directory, `${resultsStamp(report.startedAt)}.json`);
  const markdown = join(directory, "latest.md");
  await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(markdown, formatReport(report));
  return { json, markdown };
}
