import { randomBytes, randomUUID } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testClient } from "../src/testing/index.js";
import { loadConfig, serviceConfigShape } from "../src/config.js";
import { getFreePort } from "../src/infrastructure/ports.js";
import { streamName, type EventEnvelope } from "../src/events/envelope.js";
import { ProcessedEvent } from "../src/events/entities.js";
import { checkHealth } from "../src/grpc/client.js";
import { createLogger } from "../src/logger.js";
import { runMain, type ProcessHost } from "../src/process.js";
import { LIVENESS_SERVICE, startService, type RunningService, type ServiceConfig, type ServiceDeps } from "../src/service.js";
import { createTestDatabase, eventually, patient } from "../src/testing/index.js";
import { testNatsUrl } from "../src/testing/nats.js";
import { fixedNow, Note, NotesService, notesSpec } from "./support/notes-service.js";

describe("startService / stop", () => {
  let config: ServiceConfig;
  let service: RunningService;
  const context = `notes${randomBytes(4).toString("hex")}`;
  const received: EventEnvelope[] = [];
  const started: { deps: ServiceDeps; health: string }[] = [];
  const logLines: string[] = [];

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "service");
    const port = await getFreePort();
    config = loadConfig(serviceConfigShape, {
      DATABASE_URL: databaseUrl,
      NATS_URL: await testNatsUrl(),
      GRPC_PORT: String(port),
      SHUTDOWN_GRACE_MS: "1000",
    });
    // onStarted sees the server already listening but not yet SERVING.
    const onStarted = async (deps: ServiceDeps) => {
      started.push({ deps, health: await checkHealth(`127.0.0.1:${port}`) });
    };
    service = await startService(notesSpec(context, received, onStarted), config, {
      clock: () => fixedNow,
      logger: createLogger("notes", { write: (line) => logLines.push(line) }),
    });
  });
  afterAll(() => service?.stop());

  it("is SERVING once started, only after onStarted ran with the dependencies", async () => {
    expect(await checkHealth(service.address)).toBe("SERVING");
    expect(await checkHealth(service.address, "test.Notes")).toBe("SERVING");
    expect(started).toHaveLength(1);
    expect(started[0]!.health).toBe("NOT_SERVING");
    expect(started[0]!.deps.clock()).toEqual(fixedNow);
    expect(started[0]!.deps.relay).toBe(service.relay);
  });

  it("applied the migrations, serves calls with the injected clock and relays their events to consumers", async () => {
    const client = testClient(NotesService, service.address);
    try {
      const added = await client.addNote({ text: "hello" });
      expect(added.createdAt).toBe(fixedNow.toISOString());
      await expect(client.addNote({ text: "" })).rejects.toMatchObject({ code: "invalid_argument" });
      const event = await eventually(async () => received.find((e) => e.payload.text === "hello"));
      expect(event).toMatchObject({ type: "note.added", subject: `imprint.${context}.v1.note.added`, occurredAt: fixedNow.toISOString() });
      expect(await service.orm.em.fork().count(Note, { id: added.id })).toBe(1);
    } finally {
      client.close();
    }
  });

  it("drains before it stops: unready at once, liveness SERVING, new calls still served until the drain ends", async () => {
    const endDrain = new AbortController();
    let drained = false;
    const draining = service.drain(endDrain.signal, 600_000).then(() => (drained = true));
    expect(await checkHealth(service.address)).toBe("NOT_SERVING");
    expect(await checkHealth(service.address, "test.Notes")).toBe("NOT_SERVING");
    expect(await checkHealth(service.address, LIVENESS_SERVICE)).toBe("SERVING");
    // A caller that connects only now (a new channel) is still answered.
    const client = testClient(NotesService, service.address);
    try {
      expect((await client.addNote({ text: "during the drain" })).createdAt).toBe(fixedNow.toISOString());
    } finally {
      client.close();
    }
    expect(drained).toBe(false);
    endDrain.abort();
    await draining;
    expect(await checkHealth(service.address)).toBe("NOT_SERVING");
  });

  it("keeps its stream within the default age and no size limit", async () => {
    const jsm = await jetstreamManager(service.nats.current!);
    expect((await jsm.streams.info(streamName(context))).config).toMatchObject({ max_age: 7 * 24 * 3_600 * 1e9, max_bytes: -1 });
  });

  it("is not reachable after stop, and stop is idempotent", async () => {
    const address = service.address;
    await Promise.all([service.stop(), service.stop()]);
    await service.stop();
    expect(await checkHealth(address)).toBe("UNREACHABLE");
    expect(service.nats.current?.isClosed()).toBe(true);
    expect(await service.orm.isConnected()).toBe(false);
    expect(logLines.some((line) => line.includes('"service stopped"'))).toBe(true);
  });
});

describe("the runtime's jobs", () => {
  it("every service prunes processed-event records past PROCESSED_EVENTS_RETENTION_MS (the notes spec lists no jobs of its own)", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "service_prune");
    const config = loadConfig(serviceConfigShape, {
      DATABASE_URL: databaseUrl,
      NATS_URL: await testNatsUrl(),
      PROCESSED_EVENTS_RETENTION_MS: String(24 * 3_600_000),
    });
    const spec = notesSpec(`prune${randomBytes(3).toString("hex")}`, [], async () => {});
    const options = { clock: () => fixedNow, logger: createLogger("notes", { write: () => {} }) };
    // A first start creates the tables; the records are written while it runs, after its first pruning run.
    const first = await startService(spec, config, options);
    const old = { consumer: "pruned", eventId: randomUUID(), processedAt: new Date(fixedNow.getTime() - 25 * 3_600_000) };
    const recent = { consumer: "pruned", eventId: randomUUID(), processedAt: new Date(fixedNow.getTime() - 23 * 3_600_000) };
    const em = first.orm.em.fork();
    em.create(ProcessedEvent, old);
    em.create(ProcessedEvent, recent);
    await em.flush();
    await first.stop();
    // Started again, it takes the job's lease (handed back at stop) and runs it at once.
    const second = await startService(spec, config, options);
    try {
      const left = await eventually(async () => {
        const rows = await second.orm.em.fork().find(ProcessedEvent, { consumer: "pruned" });
        return rows.length === 1 && rows;
      }, patient(10_000));
      expect(left.map((row) => row.eventId)).toEqual([recent.eventId]);
    } finally {
      await second.stop();
    }
  });
});

describe("a service's deps", () => {
  it("are built once, when the first hook asks, shared by every hook, and closed at stop while the database is still open", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "service_deps");
    const config = loadConfig(serviceConfigShape, { DATABASE_URL: databaseUrl, NATS_URL: await testNatsUrl() });
    const built: ServiceDeps[] = [];
    const closed: { databaseOpen: boolean }[] = [];
    const seenByOnStarted: ServiceDeps[] = [];
    const spec = notesSpec(`deps${randomBytes(3).toString("hex")}`, [], async (deps) => {
      seenByOnStarted.push(deps);
    });
    spec.deps = {
      build: (runtime) => {
        built.push(runtime);
        return runtime;
      },
      close: async (deps) => {
        closed.push({ databaseOpen: await deps.orm.isConnected() });
      },
    };
    const service = await startService(spec, config, { logger: createLogger("notes", { write: () => {} }) });
    expect(built).toHaveLength(1);
    expect(seenByOnStarted[0]).toBe(built[0]);
    expect(closed).toEqual([]);
    await service.stop();
    expect(closed).toEqual([{ databaseOpen: true }]);
    expect(built).toHaveLength(1);
  });
});

describe("startService failures", () => {
  it("never becomes SERVING and stops everything when onStarted fails", async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "service_onstarted");
    const port = await getFreePort();
    const config = loadConfig(serviceConfigShape, { DATABASE_URL: databaseUrl, NATS_URL: await testNatsUrl(), GRPC_PORT: String(port) });
    const seen: string[] = [];
    const spec = notesSpec(`fail${randomBytes(3).toString("hex")}`, [], async () => {
      seen.push(await checkHealth(`127.0.0.1:${port}`));
      throw new Error("bootstrap failed");
    });
    await expect(startService(spec, config, { logger: createLogger("notes", { write: () => {} }) })).rejects.toThrow("bootstrap failed");
    expect(seen).toEqual(["NOT_SERVING"]);
    expect(await checkHealth(`127.0.0.1:${port}`)).toBe("UNREACHABLE");
  });
});

/** A process double: signals are delivered by the test, exits are recorded. */
function fakeProcess() {
  const listeners = new Map<string, (() => void)[]>();
  const exits: number[] = [];
  const stderr: string[] = [];
  const host: ProcessHost = {
    on: (signal, listener) => listeners.set(signal, [...(listeners.get(signal) ?? []), listener]),
    once: (signal, listener) => listeners.set(signal, [...(listeners.get(signal) ?? []), listener]),
    exit: (code) => exits.push(code),
    writeError: (text) => stderr.push(text),
  };
  const signal = (name: "SIGTERM" | "SIGINT") => listeners.get(name)?.forEach((listener) => listener());
  return { host, exits, stderr, signal };
}

describe("runMain", () => {
  it("on SIGTERM drains first, then stops; a second signal ends the drain, a third exits 1 at once", async () => {
    const proc = fakeProcess();
    const calls: string[] = [];
    let releaseStop!: () => void;
    const logger = createLogger("main", { write: () => {} });
    runMain(
      async () => ({
        drain: (signal: AbortSignal) => {
          calls.push("drain");
          return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        },
        stop: () => new Promise<void>((resolve) => (calls.push("stop"), (releaseStop = resolve))),
      }),
      logger,
      proc.host,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    proc.signal("SIGTERM");
    await eventually(async () => calls.length === 1);
    expect(calls).toEqual(["drain"]);
    proc.signal("SIGTERM");
    await eventually(async () => calls.length === 2);
    expect(calls).toEqual(["drain", "stop"]);
    expect(proc.exits).toEqual([]);
    proc.signal("SIGINT");
    expect(proc.exits).toEqual([1]);
    releaseStop();
    await eventually(async () => proc.exits.length === 2);
    expect(proc.exits).toEqual([1, 0]);
  });

  it("stops once on SIGTERM and exits 0; a second signal exits 1 at once", async () => {
    const proc = fakeProcess();
    let stops = 0;
    let releaseStop!: () => void;
    const logger = createLogger("main", { write: () => {} });
    runMain(async () => ({ stop: () => new Promise<void>((resolve) => ((stops += 1), (releaseStop = resolve))) }), logger, proc.host);
    await new Promise((resolve) => setTimeout(resolve, 10));
    proc.signal("SIGTERM");
    await eventually(async () => stops === 1);
    proc.signal("SIGINT");
    expect(proc.exits).toEqual([1]);
    releaseStop();
    await eventually(async () => proc.exits.length === 2);
    expect(proc.exits).toEqual([1, 0]);
    expect(stops).toBe(1);
  });

  it("prints a configuration error's problems without a stack and exits 1", async () => {
    const proc = fakeProcess();
    const lines: string[] = [];
    const start = async () => {
      loadConfig(serviceConfigShape, { NATS_URL: "http://x" });
      return { stop: async () => {} };
    };
    runMain(start, createLogger("main", { write: (l) => lines.push(l) }), proc.host);
    await eventually(async () => proc.exits.length === 1);
    expect(proc.exits).toEqual([1]);
    const printed = proc.stderr.join("");
    expect(printed).toContain("DATABASE_URL");
    expect(printed).toContain("NATS_URL: must be a nats:// URL");
    expect(printed).not.toMatch(/\n\s+at /);
    expect(lines).toEqual([]);
  });

  it("logs any other start failure and exits 1", async () => {
    const proc = fakeProcess();
    const lines: string[] = [];
    runMain(async () => Promise.reject(new Error("port in use")), createLogger("main", { write: (l) => lines.push(l) }), proc.host);
    await eventually(async () => proc.exits.length === 1);
    expect(proc.exits).toEqual([1]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", msg: "failed to start", err: { message: "port in use" } });
    expect(proc.stderr).toEqual([]);
  });
});
