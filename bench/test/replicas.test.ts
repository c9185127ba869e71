import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { checkHealth } from "@imprint/runtime/core";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { createTestDatabase, eventually, patient, runNodeScript, testNatsUrl } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { callsPerCopy } from "../../scripts/lib/channelz.mjs";
import { readRestartStatus } from "../../scripts/lib/restart.mjs";
import { APP, childPids, generateTokenSecret, GATEWAY, RATE_LIMITS_OUT_OF_REACH, READER, SERVICES } from "../../scripts/lib/stack.mjs";

// `IMPRINT_HOSTING=split IMPRINT_REPLICAS=2 npm start` as an operator runs it: the real launcher
// (scripts/start.mjs) on the test run's PostgreSQL and nats-server, two copies of every target.
// Every copy is live and callers spread their calls over a service's copies (counted by each
// copy's gRPC channelz service, GRPC_CHANNELZ); `npm run admin -- restart` (SIGHUP to the
// launcher) replaces every Node process, one copy at a time, while a loop of reads and writes
// through the gateway and the reader sees no failure.

const REPO_ROOT = join(import.meta.dirname, "..", "..");
const TARGET_NAMES = [...SERVICES.map((service) => service.name), READER.name, APP.name, GATEWAY.name];
const COPY_NAMES = TARGET_NAMES.flatMap((name) => [`${name}#1`, `${name}#2`]);

interface StackJson {
  gatewayUrl: string;
  readerUrl: string;
  appUrl: string;
  hosting: string;
  replicas: number;
  processes: Record<string, number>;
  pid: number;
  [grpcAddress: `${string}GrpcAddress`]: string;
}

/** The gRPC address of each copy of `service`, from the list every caller is given. */
function copiesOf(stack: StackJson, service: string): string[] {
  const list = stack[`${service}GrpcAddress`];
  if (!list) throw new Error(`stack.json has no ${service}GrpcAddress`);
  return list.split(",");
}

/** The pids of the processes listening on TCP `port` (from /proc: the table of sockets, and which process holds each). */
async function listeningPids(port: number, candidates: number[]): Promise<number[]> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDRESS:PORT in hex; state 0A is LISTEN; the 10th field is the inode.
      if (fields.length > 9 && fields[3] === "0A" && Number.parseInt(fields[1]!.split(":")[1]!, 16) === port) inodes.add(fields[9]!);
    }
  }
  const holders: number[] = [];
  for (const pid of candidates) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      if (inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? "")) {
        holders.push(pid);
        break;
      }
    }
  }
  return holders;
}

/** Calls each copy of `service` started while `work` ran (one GetServers call of ours each included). */
function callsPerServiceCopy(stack: StackJson, service: string, work: () => Promise<unknown>): Promise<number[]> {
  return callsPerCopy(copiesOf(stack, service), work);
}

interface Attempt {
  route: string;
  status: number;
  error?: string;
  startedAt: number;
}

/**
 * Reads (each once, no retry) and writes (each with one Idempotency-Key, retried with it on no
 * answer, a 5xx or a 409 with Retry-After, as scripts/lib/chaos/client.mjs does) in a loop until
 * stopped; every attempt recorded.
 */
function startLoad(options: {
  reads: { route: string; url: string; expect: number }[];
  writes: { route: string; method: string; url: string; body: () => unknown; expect: number }[];
  token: string;
}) {
  const headers = { authorization: `Bearer ${options.token}` };
  const reads: Attempt[] = [];
  const writeAttempts: Attempt[] = [];
  const failedWrites: { route: string; attempts: Attempt[] }[] = [];
  let writesDone = 0;
  let running = true;
  const attempt = async (route: string, url: string, init: RequestInit = {}): Promise<Attempt & { retryAfter: boolean }> => {
    const startedAt = Date.now();
    try {
      const response = await fetch(url, { ...init, headers: { ...headers, ...init.headers }, signal: AbortSignal.timeout(patient(20_000)) });
      await response.arrayBuffer();
      return { route, status: response.status, startedAt, retryAfter: response.headers.has("retry-after") };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { route, status: 0, error: cause ?? (error as Error).name, startedAt, retryAfter: false };
    }
  };
  const readLoop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const read = options.reads[i % options.reads.length]!;
      const { retryAfter: _, ...result } = await attempt(read.route, read.url);
      reads.push({ ...result, ...(result.status === read.expect ? {} : { error: result.error ?? `expected ${read.expect}` }) });
    }
  };
  const writeLoop = async () => {
    for (let i = 0; running; i++) {
      const write = options.writes[i % options.writes.length]!;
      const key = randomUUID();
      const body = JSON.stringify(write.body());
      const attempts: Attempt[] = [];
      const deadline = Date.now() + patient(30_000);
      for (let retry = 0; ; retry++) {
        const { retryAfter, ...result } = await attempt(write.route, write.url, {
          method: write.method,
          headers: { "content-type": "application/json", "idempotency-key": key },
          body,
        });
        attempts.push(result);
        writeAttempts.push(result);
        const inProgress = result.status === 409 && retryAfter;
        if (result.status !== 0 && result.status < 500 && !inProgress) {
          if (result.status !== write.expect) failedWrites.push({ route: write.route, attempts });
          break;
        }
        if (Date.now() > deadline) {
          failedWrites.push({ route: write.route, attempts });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** Math.min(retry, 4)));
      }
      writesDone++;
    }
  };
  const loops = [readLoop(0), readLoop(1), readLoop(2), writeLoop()];
  return {
    get reads() {
      return reads.length;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      return {
        reads,
        failedReads: reads.filter((read) => read.error !== undefined),
        writes: writesDone,
        writeAttempts,
        retriedWriteAttempts: writeAttempts.filter((write) => write.status === 0 || write.status >= 500 || write.status === 409),
        failedWrites,
      };
    },
  };
}

describe("two copies of every target (IMPRINT_HOSTING=split IMPRINT_REPLICAS=2 npm start)", () => {
  let dataDir: string;
  let launcher: ChildProcess;
  let exited: Promise<number | null>;
  let stack: StackJson;
  const token = generateTokenSecret();
  // The launcher's output (its children's warnings and errors, its own lines), shown when a test fails.
  const output: string[] = [];
  const showOutput = () => onTestFailed(() => console.error(`last lines of npm start:\n${output.slice(-80).join("\n")}`));
  const readStack = async () => JSON.parse(await readFile(join(dataDir, "stack.json"), "utf8")) as StackJson;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.gatewayUrl}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { items?: { id: string }[]; urls?: { published?: string } },
    };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "imprint-replicas-"));
    const databases: Record<string, string> = {};
    for (const service of SERVICES)
      databases[`${service.name.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(inject("pgAdminUrl"), `replicas_${service.name}`);
    launcher = spawn(process.execPath, [join(REPO_ROOT, "scripts", "start.mjs"), "--launcher"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        IMPRINT_HOSTING: "split",
        IMPRINT_REPLICAS: "2",
        IMPRINT_DATA_DIR: dataDir,
        IMPRINT_PORT: String(await getFreePort()),
        READER_PORT: String(await getFreePort()),
        APP_PORT: String(await getFreePort()),
        NATS_URL: await testNatsUrl(),
        ...databases,
        IMPRINT_BOOTSTRAP_TOKEN: token,
        // Each copy's call counts, read through its channelz service.
        GRPC_CHANNELZ: "true",
        // The gateway's deadlines scaled for a busy machine.
        UPSTREAM_TIMEOUT_MS: String(patient(10_000)),
        LOG_LEVEL: "warn",
        LOG_FORMAT: "json",
        // Three read loops and a write loop with one token, from one address: far past any limit.
        ...RATE_LIMITS_OUT_OF_REACH,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [launcher.stdout!, launcher.stderr!]) createInterface({ input: stream }).on("line", (line) => output.push(line));
    exited = new Promise((resolve) => launcher.once("exit", (code) => resolve(code)));
    const failed = exited.then((code) => {
      throw new Error(`npm start exited with code ${code} before it was ready:\n${output.slice(-40).join("\n")}`);
    });
    // Ready once it wrote stack.json (after every copy of every target said it serves).
    stack = await Promise.race([eventually(() => readStack().catch(() => undefined), 150_000, 200), failed]);
  }, patient(180_000));

  afterAll(async () => {
    if (launcher?.exitCode === null) {
      const children = childPids(launcher.pid!);
      launcher.kill("SIGTERM");
      const stopped = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("timeout"), patient(60_000)))]);
      if (stopped === "timeout") for (const pid of [launcher.pid!, ...children]) process.kill(pid, "SIGKILL");
    }
    await rm(dataDir, { recursive: true, force: true });
  }, patient(90_000));

  it(
    "runs two live copies of every target, and the gateway's calls reach both copies of each service",
    async () => {
      showOutput();
      expect([stack.hosting, stack.replicas, Object.keys(stack.processes)]).toEqual(["split", 2, COPY_NAMES]);
      // Every copy is a process of its own, all of them the launcher's children (PostgreSQL and NATS are the test run's).
      const pids = Object.values(stack.processes);
      expect(new Set(childPids(stack.pid))).toEqual(new Set(pids));
      // Each service copy on its own gRPC port, serving; every caller is given all of them.
      for (const service of SERVICES) {
        const copies = copiesOf(stack, service.name);
        expect(copies).toHaveLength(2);
        expect(await Promise.all(copies.map((copy) => checkHealth(copy)))).toEqual(["SERVING", "SERVING"]);
      }
      // The gateway's copies share its port, the reader's and the app's their own.
      for (const [target, url] of [
        [GATEWAY.name, stack.gatewayUrl],
        [READER.name, stack.readerUrl],
        [APP.name, stack.appUrl],
      ] as const) {
        const copies = [stack.processes[`${target}#1`]!, stack.processes[`${target}#2`]!];
        expect((await listeningPids(Number(new URL(url).port), pids)).sort()).toEqual(copies.sort());
      }

      // A burst of requests through the gateway (both of its copies): each balances its calls over both copies.
      const organizationId = (await api("GET", "/orgs")).body.items![0]!.id;
      const burst = async (path: string) => {
        for (let round = 0; round < 25; round++) {
          const answers = await Promise.all(Array.from({ length: 8 }, () => api("GET", path)));
          expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
        }
      };
      const identity = await callsPerServiceCopy(stack, "identity", () => burst(`/orgs/${organizationId}`));
      const content = await callsPerServiceCopy(stack, "content", () => burst(`/orgs/${organizationId}/spaces`));
      console.info(`gRPC calls per copy for 200 gateway requests: identity ${identity.join(" / ")}, content ${content.join(" / ")}`);
      for (const calls of [identity, content]) {
        const share = calls[0]! / (calls[0]! + calls[1]!);
        expect(calls[0]! + calls[1]!).toBeGreaterThanOrEqual(200);
        expect(share).toBeGreaterThanOrEqual(0.4);
        expect(share).toBeLessThanOrEqual(0.6);
      }
    },
    patient(60_000),
  );

  it(
    "replaces every Node process one copy at a time (`npm run admin -- restart`) while reads and writes see no failure",
    async () => {
      showOutput();
      // What the loop reads and writes: every service behind the gateway, and a published site on the reader.
      const organizationId = (await api("GET", "/orgs")).body.items![0]!.id;
      const space = await api("POST", `/orgs/${organizationId}/spaces`, { title: "Handbook" });
      expect(space.status).toBe(201);
      const spaceId = space.body.id as string;
      const changeRequest = await api("POST", `/spaces/${spaceId}/change-requests`, { subject: "First page" });
      expect(changeRequest.status).toBe(201);
      const content = await api("POST", `/spaces/${spaceId}/change-requests/${changeRequest.body.id as string}/content`, {
        changes: [{ operation: "insert_page", ref: "guide", slug: "guide", document: { markdown: "# Guide\n\nHow we work: write things down." } }],
      });
      expect(content.status).toBeLessThan(300);
      expect((await api("POST", `/spaces/${spaceId}/change-requests/${changeRequest.body.id as string}/merge`)).status).toBe(200);
      const site = await api("POST", `/orgs/${organizationId}/sites`, { title: "Handbook", visibility: "public", spaces: [spaceId] });
      expect(site.status).toBeLessThan(300);
      const siteId = site.body.id as string;
      const published = await api("POST", `/orgs/${organizationId}/sites/${siteId}/publish`);
      expect(published.status).toBeLessThan(300);
      const page = `${published.body.urls!.published!.replace(/\/$/, "")}/guide`;
      await eventually(async () => (await fetch(page)).status === 200, 15_000, 100);

      const v1 = `${stack.gatewayUrl}/v1`;
      const load = startLoad({
        token,
        reads: [
          { route: "GET /orgs/{id} (identity)", url: `${v1}/orgs/${organizationId}`, expect: 200 },
          { route: "GET /spaces/{id}/content/pages (content)", url: `${v1}/spaces/${spaceId}/content/pages`, expect: 200 },
          { route: "GET /spaces/{id}/change-requests (collaboration)", url: `${v1}/spaces/${spaceId}/change-requests`, expect: 200 },
          { route: "GET /orgs/{id}/sites (publishing)", url: `${v1}/orgs/${organizationId}/sites`, expect: 200 },
          { route: "GET /integrations (integration)", url: `${v1}/integrations`, expect: 200 },
          { route: "GET <site>/guide (reader)", url: page, expect: 200 },
        ],
        writes: [
          {
            route: "POST /orgs/{id}/spaces (content)",
            method: "POST",
            url: `${v1}/orgs/${organizationId}/spaces`,
            body: () => ({ title: `Space ${randomUUID().slice(0, 8)}` }),
            expect: 201,
          },
          {
            route: "PATCH /orgs/{id} (identity)",
            method: "PATCH",
            url: `${v1}/orgs/${organizationId}`,
            body: () => ({ title: `Org ${randomUUID().slice(0, 8)}` }),
            expect: 200,
          },
          {
            route: "POST /spaces/{id}/change-requests (collaboration)",
            method: "POST",
            url: `${v1}/spaces/${spaceId}/change-requests`,
            body: () => ({ subject: `Change ${randomUUID().slice(0, 8)}` }),
            expect: 201,
          },
          {
            route: "PATCH /orgs/{id}/sites/{id} (publishing)",
            method: "PATCH",
            url: `${v1}/orgs/${organizationId}/sites/${siteId}`,
            body: () => ({ title: `Site ${randomUUID().slice(0, 8)}` }),
            expect: 200,
          },
        ],
      });
      await eventually(async () => load.reads > 20, 10_000, 20);

      const before = await readStack();
      const restart = await runNodeScript(join(REPO_ROOT, "scripts", "admin.mjs"), ["restart"], {
        env: { IMPRINT_DATA_DIR: dataDir },
        cwd: REPO_ROOT,
        timeoutMs: patient(300_000),
      });
      const seen = await load.stop();

      expect(restart.code, `${restart.stdout}\n${restart.stderr}`).toBe(0);
      const status = (await readRestartStatus(dataDir))!;
      expect(status.state).toBe("done");
      // One copy at a time, every Node process, each by a new one.
      expect(status.steps.map((step) => step.name)).toEqual(COPY_NAMES);
      for (const step of status.steps) {
        expect(restart.stdout).toContain(`✔ ${step.name} replaced: pid ${step.oldPid} → ${step.newPid}`);
        expect(step.oldPid).toBe(before.processes[step.name]);
      }
      expect(restart.stdout).toMatch(new RegExp(`✔ rolling restart done in [\\d.]+ s: ${COPY_NAMES.length} processes replaced`));
      const after = await readStack();
      const oldPids = Object.values(before.processes);
      const newPids = Object.values(after.processes);
      expect(newPids.filter((pid) => oldPids.includes(pid))).toEqual([]);
      expect(new Set(childPids(stack.pid))).toEqual(new Set(newPids));
      expect(status.steps.map((step) => step.newPid)).toEqual(newPids);

      // The loop ran through every replacement and saw no failed request.
      for (const step of status.steps) {
        expect(
          seen.reads.some((read) => read.startedAt >= step.startedAt && read.startedAt <= step.startedAt + step.ms),
          step.name,
        ).toBe(true);
      }
      expect(seen.failedReads).toEqual([]);
      expect(seen.failedWrites).toEqual([]);
      const tookMs = status.finishedAt! - status.startedAt;
      console.info(
        `rolling restart of ${status.steps.length} processes in ${(tookMs / 1000).toFixed(1)} s under load: ${seen.reads.length} reads, ${seen.failedReads.length} failed; ` +
          `${seen.writes} writes, ${seen.failedWrites.length} failed (${seen.retriedWriteAttempts.length} attempts retried with their key)`,
      );
      // The bound for two copies of everything.
      expect(tookMs).toBeLessThan(4 * 60_000);

      // The callers balance over the new copies as over the old ones.
      const identity = await callsPerServiceCopy(after, "identity", () => Promise.all(Array.from({ length: 40 }, () => api("GET", `/orgs/${organizationId}`))));
      expect(
        identity.every((calls) => calls >= 5),
        `identity calls per copy ${identity.join(" / ")}`,
      ).toBe(true);
    },
    patient(360_000),
  );
});
