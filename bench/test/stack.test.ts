import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { createTestDatabase, eventually, patient, testNatsUrl } from "@imprint/runtime/testing";
import {
  checkReplicas,
  describeEvent,
  generateTokenSecret,
  HOSTINGS,
  oneAtATime,
  ONE_PROCESS_NAME,
  resolveBootstrapToken,
  resolvePageTokenSecret,
  resolveReplicas,
  restartDelayMs,
  serviceNodeFlags,
  startUnit,
  stackDescription,
  startStack,
  StackStartError,
  type Hosting,
  type RestartStep,
  type SupervisionEvent,
  type Stack,
} from "../../scripts/lib/stack.mjs";

// The orchestration behind `npm start` and `npm run bench`, run against the built services with the
// test run's PostgreSQL and nats-server, in both hostings: every target in one process, and one
// process per target.

/** The samples of `family` in a Prometheus text answer whose labels include `labels`: [labels text, value]. */
function samples(text: string, family: string, labels: Record<string, string> = {}): number[] {
  const wanted = Object.entries(labels).map(([name, value]) => `${name}="${value}"`);
  const found: number[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${family}{`) && !line.startsWith(`${family} `)) continue;
    const labelsText = line.startsWith(`${family}{`) ? line.slice(family.length + 1, line.lastIndexOf("}")) : "";
    const present = labelsText.split(",");
    if (wanted.every((label) => present.includes(label))) found.push(Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return found;
}

/** The sum of the samples of `family` with `labels`. */
function total(text: string, family: string, labels: Record<string, string> = {}): number {
  return samples(text, family, labels).reduce((sum, value) => sum + value, 0);
}

describe("bootstrap token", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "imprint-token-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("generates imp_ plus 40 base62 characters", () => {
    const secrets = new Set(Array.from({ length: 20 }, () => generateTokenSecret()));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) expect(secret).toMatch(/^imp_[0-9A-Za-z]{40}$/);
  });

  it("creates the token once, private to the owner, and reuses it", async () => {
    const first = await resolveBootstrapToken(dir, {});
    expect((await stat(join(dir, "bootstrap-token"))).mode & 0o777).toBe(0o600);
    const second = await resolveBootstrapToken(dir, {});
    expect(second.token).toBe(first.token);
    expect((await readFile(join(dir, "bootstrap-token"), "utf8")).trim()).toBe(first.token);
  });

  it("gives launchers starting at once one token (the first written wins)", async () => {
    const fresh = await mkdtemp(join(dir, "race-"));
    const tokens = await Promise.all(Array.from({ length: 4 }, () => resolveBootstrapToken(fresh, {})));
    const kept = (await readFile(join(fresh, "bootstrap-token"), "utf8")).trim();
    expect(kept).toMatch(/^imp_[0-9A-Za-z]{40}$/);
    for (const { token } of tokens) expect(token).toBe(kept);
  });

  it("prefers IMPRINT_BOOTSTRAP_TOKEN over the kept one", async () => {
    const chosen = await resolveBootstrapToken(dir, { IMPRINT_BOOTSTRAP_TOKEN: "imp_chosen_by_operator_0001" });
    expect(chosen).toEqual({ token: "imp_chosen_by_operator_0001", source: "IMPRINT_BOOTSTRAP_TOKEN" });
  });

  it("keeps the gateway's page-token secret in the data dir, so cursors survive a restart", async () => {
    const first = await resolvePageTokenSecret(dir, {});
    expect(first).toMatch(/^[0-9A-Za-z]{48}$/);
    expect((await stat(join(dir, "page-token-secret"))).mode & 0o777).toBe(0o600);
    expect(await resolvePageTokenSecret(dir, {})).toBe(first);
    expect(await resolvePageTokenSecret(dir, { IMPRINT_PAGE_TOKEN_SECRET: "x".repeat(32) })).toBe("x".repeat(32));
  });
});

describe.each(HOSTINGS)("startStack (%s)", (hosting: Hosting) => {
  let dataDir: string;
  let stack: Stack;
  const token = generateTokenSecret();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "imprint-stack-"));
    stack = await startStack({
      dataDir,
      persistent: false,
      // Stopped with SIGTERM one process after another: no drain (tested on its own) to sit out.
      env: { ...process.env, LOG_LEVEL: "warn", SHUTDOWN_DRAIN_MS: "0" },
      hosting,
      gatewayPort: 0,
      natsUrl: await testNatsUrl(),
      databaseUrls: {
        identity: await createTestDatabase(inject("pgAdminUrl"), "stack"),
        content: await createTestDatabase(inject("pgAdminUrl"), "stack_content"),
        collaboration: await createTestDatabase(inject("pgAdminUrl"), "stack_collaboration"),
        publishing: await createTestDatabase(inject("pgAdminUrl"), "stack_publishing"),
        integration: await createTestDatabase(inject("pgAdminUrl"), "stack_integration"),
      },
      bootstrap: { token, email: "owner@stack.test", orgTitle: "Stack Test Org" },
    });
  }, patient(90_000));

  afterAll(async () => {
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves the API with the bootstrap token once ready", async () => {
    const response = await fetch(`${stack.gatewayUrl}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: { title: string }[]; count: number };
    expect(body.count).toBe(1);
    expect(body.items[0]?.title).toBe("Stack Test Org");
  });

  it("describes itself for the admin CLI", () => {
    const description = stackDescription(stack, 4242);
    expect(description).toEqual({
      identityGrpcAddress: stack.grpcAddresses.identity,
      contentGrpcAddress: stack.grpcAddresses.content,
      collaborationGrpcAddress: stack.grpcAddresses.collaboration,
      publishingGrpcAddress: stack.grpcAddresses.publishing,
      integrationGrpcAddress: stack.grpcAddresses.integration,
      gatewayUrl: stack.gatewayUrl,
      readerUrl: stack.readerUrl,
      appUrl: stack.appUrl,
      natsUrl: stack.infra.natsUrl,
      hosting,
      replicas: 1,
      processes: Object.fromEntries(stack.processes.map((p) => [p.name, p.pid])),
      pid: 4242,
    });
    expect(description.identityGrpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it("starts with V8's memory saver mode every process that hosts neither content, identity nor the gateway", () => {
    const skipped = (name: string) => name === ONE_PROCESS_NAME || ["content", "identity", "gateway"].some((target) => name.startsWith(target));
    expect(stack.processes.length).toBe(hosting === "split" ? 8 : 1);
    for (const handle of stack.processes) {
      const argv = readFileSync(`/proc/${handle.pid}/cmdline`, "utf8").split("\0");
      expect(argv, handle.name).toContain("--max-semi-space-size=8");
      expect(argv.includes("--memory-saver-mode"), handle.name).toBe(!skipped(handle.name));
    }
  });

  it("serves published sites on the reader, whose URL the API builds them on", async () => {
    expect(stack.readerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${stack.readerUrl}/healthz`)).status).toBe(200);
    // A site that does not exist is the reader's 404 page, not a connection refused.
    const missing = await fetch(`${stack.readerUrl}/no-organization/no-site/`);
    expect([missing.status, missing.headers.get("content-type")]).toEqual([404, "text/html; charset=utf-8"]);
  });

  it("serves the browser app on the gateway's origin, forwarded to the app's own port", async () => {
    expect(stack.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${stack.appUrl}/healthz`)).status).toBe(200);
    for (const base of [stack.gatewayUrl, stack.appUrl]) {
      const shell = await fetch(`${base}/sign-in`);
      expect([shell.status, shell.headers.get("content-type")], base).toEqual([200, "text/html; charset=utf-8"]);
      expect(shell.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await shell.text()).toContain('<div id="app">');
    }
  });

  it("serves Prometheus metrics from every process, whose request and RPC counters move with a request", async () => {
    const scrape = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(stack.metricsUrls).map(async ([name, url]) => {
            const response = await fetch(url);
            expect(response.status, name).toBe(200);
            return [name, await response.text()] as const;
          }),
        ),
      );
    const serviceNames = ["identity", "content", "collaboration", "publishing", "integration"];
    // Split: a metrics endpoint per process; one process: the gateway's port, for all of it.
    expect(Object.keys(stack.metricsUrls)).toEqual(hosting === "split" ? [...serviceNames, "reader", "app", "gateway"] : [ONE_PROCESS_NAME]);
    const textOf = (texts: Record<string, string>, target: string) => texts[hosting === "split" ? target : ONE_PROCESS_NAME]!;

    // A kept-answer lookup on the reader, then a scrape; then an API request (an RPC to identity) and another scrape.
    await fetch(`${stack.readerUrl}/no-organization/no-site/`, { headers: { accept: "text/html" } });
    const before = await scrape();
    const orgs = await fetch(`${stack.gatewayUrl}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
    expect(orgs.status).toBe(200);
    const after = await scrape();

    for (const [name, text] of Object.entries(after)) {
      for (const family of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]) {
        expect(samples(text, family).length, `${name}: ${family}`).toBeGreaterThan(0);
      }
      // Every family is declared in every process; GC durations count once a collection ran, the sandbox's once a script ran.
      for (const family of [
        "nodejs_gc_duration_seconds",
        "imprint_sandbox_runs_total",
        "imprint_sandbox_run_duration_seconds",
        "imprint_sandbox_kills_total",
      ]) {
        expect(text, `${name}: ${family}`).toContain(`# TYPE ${family} `);
      }
    }
    for (const service of serviceNames) {
      const text = textOf(after, service);
      for (const family of [
        "imprint_db_pool_connections_in_use",
        "imprint_db_pool_connections_idle",
        "imprint_db_pool_waiting_requests",
        "imprint_outbox_backlog_events",
        "imprint_outbox_oldest_event_age_seconds",
        "imprint_job_runs_total",
        "imprint_job_failures_total",
        "imprint_job_lease_takeovers_total",
        "imprint_job_run_duration_seconds_count",
      ]) {
        expect(samples(text, family, { service }).length, `${service}: ${family}`).toBeGreaterThan(0);
      }
      // A method's series appear at its first call (identity's below).
      expect(text, `${service}: RPCs`).toContain("# TYPE imprint_grpc_server_handled_total counter");
    }
    // Consumers (content's, publishing's, ...): their lag asked of JetStream, their counters.
    const consumerText = textOf(after, "publishing");
    for (const family of [
      "imprint_consumer_pending_messages",
      "imprint_consumer_oldest_pending_age_seconds",
      "imprint_consumer_events_handled_total",
      "imprint_consumer_redeliveries_total",
      "imprint_consumer_dead_letters_total",
    ]) {
      expect(samples(consumerText, family).length, family).toBeGreaterThan(0);
    }
    expect(
      samples(textOf(after, "content"), "imprint_outbox_relay_latency_seconds_count").length +
        samples(textOf(after, "identity"), "imprint_outbox_published_events_total").length,
    ).toBeGreaterThan(0);
    // The gateway: per route, and its token cache; the reader: its requests and kept-answer lookups.
    const gateway = textOf(after, "gateway");
    const orgsRoute = { server: "gateway", route: "/v1/orgs", method: "GET", status: "200" };
    expect(total(gateway, "imprint_http_requests_total", orgsRoute)).toBe(total(textOf(before, "gateway"), "imprint_http_requests_total", orgsRoute) + 1);
    expect(total(gateway, "imprint_http_request_duration_seconds_count", { server: "gateway", route: "/v1/orgs" })).toBeGreaterThan(0);
    expect(
      samples(gateway, "imprint_cache_hits_total", { cache: "tokens" }).length + samples(gateway, "imprint_cache_misses_total", { cache: "tokens" }).length,
    ).toBeGreaterThan(0);
    expect(samples(gateway, "imprint_cache_size_bytes").length).toBeGreaterThan(0);
    const reader = textOf(after, "reader");
    expect(total(reader, "imprint_http_requests_total", { server: "reader", route: "not_found" })).toBeGreaterThan(0);
    expect(total(reader, "imprint_reader_kept_answer_lookups_total", { result: "miss" })).toBeGreaterThan(0);
    expect(reader).toContain("# TYPE imprint_reader_pages_served_total counter");
    // The API request was answered by identity's RPCs (over gRPC when split, directly in one process): its series moved.
    expect(total(textOf(after, "identity"), "imprint_grpc_server_handling_seconds_count")).toBeGreaterThan(0);
    expect(total(textOf(after, "identity"), "imprint_grpc_server_handled_total", { grpc_code: "OK" })).toBeGreaterThan(
      total(textOf(before, "identity"), "imprint_grpc_server_handled_total", { grpc_code: "OK" }),
    );
  });

  it.runIf(hosting === "split")("runs every service, the reader, the app and the gateway as separate processes", () => {
    expect(stack.processes.map((p) => p.name)).toEqual(["identity", "content", "collaboration", "publishing", "integration", "reader", "app", "gateway"]);
    const pids = stack.processes.map((p) => p.pid);
    expect(new Set([...pids, process.pid]).size).toBe(pids.length + 1);
    expect(stack.processes.every((p) => p.running)).toBe(true);
  });

  it.runIf(hosting === "one-process")("runs every service and the gateway in one process, each on its own gRPC address", () => {
    expect(stack.hosting).toBe("one-process");
    expect(stack.processes.map((p) => p.name)).toEqual([ONE_PROCESS_NAME]);
    expect(stack.processes[0]?.pid).not.toBe(process.pid);
    expect(stack.processes[0]?.running).toBe(true);
    expect(new Set(Object.values(stack.grpcAddresses)).size).toBe(5);
  });

  it.runIf(hosting === "split")(
    "restarts a service killed with SIGKILL while the rest keeps serving",
    async () => {
      const content = stack.processes.find((p) => p.name === "content")!;
      const killedPid = content.pid;
      const events: SupervisionEvent[] = [];
      const back = new Promise<void>((resolve) => {
        const off = stack.onEvent((event) => {
          if (event.name !== "content") return;
          events.push(event);
          if (event.type === "ready") {
            off();
            resolve();
          }
        });
      });
      content.signal("SIGKILL");
      // Identity's routes answer while content is down or restarting.
      const orgs = await fetch(`${stack.gatewayUrl}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
      expect(orgs.status).toBe(200);
      await back;
      expect(events.map((event) => event.type)).toEqual(["exited", "restarted", "ready"]);
      expect(describeEvent(events[0]!)).toBe("↻ content exited (signal SIGKILL); restarted in 1 s (restart 1)");
      expect(content.pid).not.toBe(killedPid);
      expect(content.running).toBe(true);
      expect(content.restarts).toBe(1);
      // Same port: the gateway reaches the new process (content's spaces of the organization).
      const organizationId = ((await orgs.json()) as { items: { id: string }[] }).items[0]!.id;
      const spaces = await eventually(async () => {
        const response = await fetch(`${stack.gatewayUrl}/v1/orgs/${organizationId}/spaces`, { headers: { authorization: `Bearer ${token}` } });
        return response.status === 200 ? response : undefined;
      }, 15_000);
      expect(spaces.status).toBe(200);
    },
    patient(60_000),
  );

  it(
    "replaces every Node process with a rolling restart, one after the other, and serves on",
    async () => {
      const before = stack.processes.map((p) => p.pid);
      const steps: RestartStep[] = [];
      // When the promise of each "replacing" step settled: the replacement waits for it (a caller reads the process once more).
      const settled = new Map<string, number>();
      const restarted = await stack.restart({
        onStep: async (step) => {
          steps.push(step);
          if (step.type !== "replacing") return;
          await new Promise((resolve) => setTimeout(resolve, 50));
          settled.set(step.name, Date.now());
        },
      });
      const names = stack.processes.map((p) => p.name);
      for (const step of restarted.steps) expect(step.startedAt, step.name).toBeGreaterThanOrEqual(settled.get(step.name)!);
      expect(steps.map((step) => (step.type === "started" ? step.names.join(",") : `${step.type} ${step.name}`))).toEqual([
        names.join(","),
        ...names.flatMap((name) => [`replacing ${name}`, `replaced ${name}`]),
      ]);
      const after = stack.processes.map((p) => p.pid);
      expect(restarted.steps.map((step) => [step.name, step.oldPid, step.newPid])).toEqual(names.map((name, index) => [name, before[index], after[index]]));
      expect(after.filter((pid) => before.includes(pid))).toEqual([]);
      expect(stack.processes.every((p) => p.running)).toBe(true);
      const orgs = await fetch(`${stack.gatewayUrl}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
      expect(orgs.status).toBe(200);
    },
    patient(120_000),
  );

  it("stops the gateway and the services with SIGTERM and leaves nothing running", async () => {
    const processes = stack.processes;
    await stack.stop();
    for (const p of processes) {
      expect(p.running).toBe(false);
      expect(await p.exited).toEqual({ code: 0, signal: null });
    }
  });
});

describe("startStack failures", () => {
  it("names IMPRINT_PORT when the gateway port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const attempt = startStack({
        dataDir: tmpdir(),
        persistent: false,
        gatewayPort: port,
        natsUrl: await testNatsUrl(),
        databaseUrls: { identity: "postgres://unused/x" },
      });
      await expect(attempt).rejects.toThrow(new RegExp(`port ${port} is already in use: set IMPRINT_PORT`));
    } finally {
      blocker.close();
    }
  });

  it.each(HOSTINGS)(
    "reports the last lines of a service that exits during start (%s)",
    async (hosting) => {
      const dataDir = await mkdtemp(join(tmpdir(), "imprint-stack-"));
      try {
        const attempt = startStack({
          dataDir,
          persistent: false,
          env: { ...process.env, LOG_LEVEL: "warn" },
          hosting,
          gatewayPort: 0,
          natsUrl: await testNatsUrl(),
          databaseUrls: {
            identity: await createTestDatabase(inject("pgAdminUrl"), "stack"),
            content: await createTestDatabase(inject("pgAdminUrl"), "stack_content"),
            collaboration: await createTestDatabase(inject("pgAdminUrl"), "stack_collaboration"),
            publishing: await createTestDatabase(inject("pgAdminUrl"), "stack_publishing"),
            integration: await createTestDatabase(inject("pgAdminUrl"), "stack_integration"),
          },
          // Refused by identity's configuration check: the process exits with its reason.
          bootstrap: { token: "not-a-valid-token" },
        });
        const error = await attempt.then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StackStartError);
        expect((error as StackStartError).message).toMatch(new RegExp(`^${hosting === "split" ? "identity" : ONE_PROCESS_NAME} exited with code [1-9]`));
        expect((error as StackStartError).lastLines.join("\n")).toContain("IMPRINT_BOOTSTRAP_TOKEN");
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    patient(60_000),
  );
});

describe("V8 flags of the stack's processes", () => {
  it("add the memory saver mode where content, identity and the gateway are not hosted, unless IMPRINT_NODE_FLAGS says otherwise", () => {
    const defaults = ["--max-semi-space-size=8", "--heap-growing-percent=50"];
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "publishing" })).toEqual([...defaults, "--memory-saver-mode"]);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "collaboration,integration,reader,app" })).toEqual([...defaults, "--memory-saver-mode"]);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "content" })).toEqual(defaults);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "identity" })).toEqual(defaults);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "gateway" })).toEqual(defaults);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "publishing,identity" })).toEqual(defaults);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "all" })).toEqual(defaults);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "publishing", IMPRINT_NODE_FLAGS: " --max-old-space-size=200  " })).toEqual(["--max-old-space-size=200"]);
    expect(serviceNodeFlags({ IMPRINT_TARGETS: "publishing", IMPRINT_NODE_FLAGS: "" })).toEqual([]);
  });
});

describe("restart backoff", () => {
  it("waits 1 s, doubling per crash in a row, never more than 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((crashes) => restartDelayMs(crashes))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("restarts a process each time it dies, backing off while it keeps crashing, and holds it when asked", async () => {
    vi.useFakeTimers();
    try {
      // A process is a handle whose end the test decides.
      const launched: { die: (signal: string) => void }[] = [];
      const launch = async () => {
        let die!: (signal: string) => void;
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
          die = (signal) => resolve({ code: null, signal });
        });
        let running = true;
        void exited.then(() => (running = false));
        launched.push({ die });
        return {
          pid: launched.length,
          exited,
          get running() {
            return running;
          },
          signal: (signal: string) => die(signal),
          stop: async () => die("SIGTERM"),
        };
      };
      const events: SupervisionEvent[] = [];
      const unit = await startUnit({ name: "worker", launch, onEvent: (event) => events.push(event) });
      const types = () => events.map((event) => `${event.type}${event.type === "exited" ? ` ${event.delayMs}` : ""}`);

      unit.signal("SIGKILL");
      await vi.advanceTimersByTimeAsync(999);
      expect([launched.length, types()]).toEqual([1, ["exited 1000"]]);
      await vi.advanceTimersByTimeAsync(1);
      expect([launched.length, unit.pid, unit.restarts]).toEqual([2, 2, 1]);
      // Crashing again at once: twice the wait.
      unit.signal("SIGKILL");
      await vi.advanceTimersByTimeAsync(2_000);
      expect(types()).toEqual(["exited 1000", "restarted", "ready", "exited 2000", "restarted", "ready"]);
      // Up for a minute: back to 1 s.
      await vi.advanceTimersByTimeAsync(60_000);
      unit.signal("SIGKILL");
      await vi.advanceTimersByTimeAsync(1_000);
      expect(types().at(-3)).toBe("exited 1000");

      // Held: stays down until released.
      unit.hold();
      unit.signal("SIGKILL");
      await vi.advanceTimersByTimeAsync(120_000);
      expect([launched.length, unit.running, types().at(-1)]).toEqual([4, false, "exited null"]);
      await unit.release();
      expect([launched.length, unit.running]).toEqual([5, true]);

      // Stopped: never again.
      await unit.stop();
      await vi.advanceTimersByTimeAsync(120_000);
      expect(launched.length).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });

  it("names the process, how it ended and when it comes back", () => {
    expect(describeEvent({ type: "exited", name: "postgres", at: 0, code: null, signal: "SIGKILL", restart: 3, delayMs: 4_000 })).toBe(
      "↻ postgres exited (signal SIGKILL); restarted in 4 s (restart 3)",
    );
    expect(describeEvent({ type: "exited", name: "gateway", at: 0, code: 1, signal: null, restart: 1, delayMs: 1_000 })).toBe(
      "↻ gateway exited with code 1; restarted in 1 s (restart 1)",
    );
    expect(describeEvent({ type: "ready", name: "nats", at: 0, restart: 1, afterMs: 1_500 })).toBe("✔ nats is back (restart 1, ready 1.5 s after its start)");
  });
});

describe("copies of every target (IMPRINT_REPLICAS)", () => {
  it("runs one copy unless told otherwise, and several only in split hosting", () => {
    expect(resolveReplicas({}, "split")).toBe(1);
    expect(resolveReplicas({ IMPRINT_REPLICAS: "" }, "one-process")).toBe(1);
    expect(resolveReplicas({ IMPRINT_REPLICAS: "2" }, "split")).toBe(2);
    expect(resolveReplicas({ IMPRINT_REPLICAS: "1" }, "one-process")).toBe(1);
    expect(() => resolveReplicas({ IMPRINT_REPLICAS: "2" }, "one-process")).toThrow(
      "IMPRINT_REPLICAS=2 needs IMPRINT_HOSTING=split: one process hosting every target cannot run twice (its services' gRPC ports would clash); run IMPRINT_HOSTING=split IMPRINT_REPLICAS=2 npm start",
    );
    for (const bad of ["0", "-1", "two", "1.5", "2x"]) {
      expect(() => resolveReplicas({ IMPRINT_REPLICAS: bad }, "split"), bad).toThrow(
        `IMPRINT_REPLICAS must be a whole number of copies of each target, 1 or more, got "${bad}"`,
      );
    }
    expect(() => checkReplicas(0, "split")).toThrow("IMPRINT_REPLICAS must be a whole number");
  });

  it("refuses copies in one process before starting anything", async () => {
    const attempt = startStack({ dataDir: tmpdir(), persistent: false, hosting: "one-process", replicas: 2, natsUrl: "nats://127.0.0.1:1", databaseUrls: {} });
    await expect(attempt).rejects.toThrow(StackStartError);
    await expect(attempt).rejects.toThrow("IMPRINT_REPLICAS=2 needs IMPRINT_HOSTING=split");
  });
});

describe("replacing a supervised process (rolling restart)", () => {
  /** Processes as handles whose end the test decides; `log` says what happened in which order. */
  function fakeProcesses() {
    const log: string[] = [];
    const launched: { pid: number; ready: boolean; die: (signal: string) => void; running: boolean }[] = [];
    /** Whether the processes started from now on are ready at once. */
    const options = { readyAtStart: true };
    const launch = async () => {
      const pid = launched.length + 1;
      let die!: (signal: string) => void;
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
        die = (signal) => resolve({ code: signal === "SIGTERM" ? 0 : null, signal: signal === "SIGTERM" ? null : signal });
      });
      const process = { pid, ready: options.readyAtStart, die, running: true };
      void exited.then(() => {
        process.running = false;
        log.push(`${pid} ended`);
      });
      launched.push(process);
      log.push(`${pid} started`);
      return {
        pid,
        exited,
        get running() {
          return process.running;
        },
        signal: (signal: string) => die(signal),
        stop: async () => {
          log.push(`${pid} stopping`);
          die("SIGTERM");
          return exited;
        },
      };
    };
    /** How often readiness was asked, by pid. */
    const asked = new Map<number, number>();
    const probe = async (handle: { pid: number | undefined }) => {
      asked.set(handle.pid!, (asked.get(handle.pid!) ?? 0) + 1);
      return launched[handle.pid! - 1]!.ready;
    };
    return { log, launched, launch, probe, options, asked };
  }

  it(
    "stops the old process, then starts the new one in its place, and keeps supervising it",
    async () => {
      const { log, launch, probe } = fakeProcesses();
      const events: SupervisionEvent[] = [];
      const unit = await startUnit({ name: "content#1", launch, probe, onEvent: (event) => events.push(event) });
      const replaced = await unit.replace();
      expect(replaced).toMatchObject({ name: "content#1", oldPid: 1, newPid: 2 });
      expect(log).toEqual(["1 started", "1 stopping", "1 ended", "2 started"]);
      // The old one's end was no crash: no restart of it.
      expect(events).toEqual([]);
      expect([unit.pid, unit.running]).toEqual([2, true]);
      // The new one is supervised as the old one was.
      const back = new Promise<void>((resolve) => unit.on((event) => event.type === "ready" && resolve()));
      unit.signal("SIGKILL");
      await back;
      expect([unit.pid, unit.restarts, events.map((event) => event.type)]).toEqual([3, 1, ["exited", "restarted", "ready"]]);
      await unit.stop();
    },
    patient(10_000),
  );

  it(
    "with surge, starts the new process beside the old one and stops the old one only once the new one is ready",
    async () => {
      const { log, launched, launch, probe, options, asked } = fakeProcesses();
      const unit = await startUnit({ name: "gateway#2", launch, probe });
      options.readyAtStart = false;
      const replacing = unit.replace({ surge: true });
      // Asked twice and not ready yet: the old one keeps serving.
      await eventually(async () => (asked.get(2) ?? 0) >= 2);
      expect([log, unit.pid]).toEqual([["1 started", "2 started"], 1]);
      launched[1]!.ready = true;
      expect(await replacing).toMatchObject({ oldPid: 1, newPid: 2 });
      expect(log).toEqual(["1 started", "2 started", "1 stopping", "1 ended"]);
      expect([unit.pid, unit.running]).toEqual([2, true]);
      await unit.stop();
    },
    patient(10_000),
  );

  it(
    "with surge, keeps the old process when the new one dies before it is ready",
    async () => {
      const { log, launched, launch, probe, options } = fakeProcesses();
      const unit = await startUnit({ name: "reader#1", launch, probe });
      options.readyAtStart = false;
      const replacing = unit.replace({ surge: true, timeoutMs: 60_000 });
      await eventually(async () => launched.length === 2);
      launched[1]!.die("SIGSEGV");
      await expect(replacing).rejects.toThrow("reader#1 exited (signal SIGSEGV) before it was ready");
      expect(log).toEqual(["1 started", "2 started", "2 ended", "2 stopping"]);
      expect([unit.pid, unit.running]).toEqual([1, true]);
      await unit.stop();
    },
    patient(10_000),
  );

  it(
    "starts a dead process waiting for its backoff at once",
    async () => {
      const { log, launch, probe } = fakeProcesses();
      const events: SupervisionEvent[] = [];
      const unit = await startUnit({ name: "publishing#2", launch, probe, onEvent: (event) => events.push(event) });
      unit.signal("SIGKILL");
      await eventually(async () => events.length === 1);
      expect(events[0]).toMatchObject({ type: "exited", delayMs: 1_000 });
      expect(await unit.replace()).toMatchObject({ oldPid: 1, newPid: 2 });
      expect([log, unit.running, unit.restarts]).toEqual([["1 started", "1 ended", "2 started"], true, 1]);
      await unit.stop();
    },
    patient(10_000),
  );

  it("runs restarts one at a time: asked during one, once more after it, however often", async () => {
    const runs: Array<() => void> = [];
    const queue = oneAtATime(() => new Promise<number>((resolve) => runs.push(() => resolve(runs.length))));
    const first = queue.request();
    const second = queue.request();
    const third = queue.request();
    expect([runs.length, queue.running, queue.queued]).toEqual([1, true, true]);
    runs[0]!();
    expect(await first).toBe(1);
    await eventually(async () => runs.length === 2);
    expect(queue.queued).toBe(false);
    runs[1]!();
    expect([await second, await third]).toEqual([2, 2]);
    expect([runs.length, queue.running]).toEqual([2, false]);
  });
});
