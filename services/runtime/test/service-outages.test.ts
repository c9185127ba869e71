import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { loadConfig, serviceConfigShape } from "../src/config.js";
import { openDatabase } from "../src/db/orm.js";
import type { EventEnvelope } from "../src/events/envelope.js";
import { checkHealth } from "../src/grpc/client.js";
import { createLogger } from "../src/logger.js";
import { LIVENESS_SERVICE, startService, type RunningService } from "../src/service.js";
import {
  createTestDatabase,
  eventually,
  patient,
  startRestartableNats,
  startRestartablePostgres,
  testClient,
  type RestartableServer,
} from "../src/testing/index.js";
import { NotesService, notesSpec } from "./support/notes-service.js";

const logLines: string[] = [];
const logger = createLogger("notes", { write: (line) => logLines.push(line) });
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function owned<T extends RestartableServer>(server: T): T {
  cleanup.push(() => server.close());
  return server;
}

function started(service: RunningService): RunningService {
  cleanup.push(() => service.stop());
  return service;
}

/** Milliseconds until `check` answers `status` (polled every 100 ms), failing after `limitMs`. */
async function timeUntil(check: () => Promise<string>, status: string, limitMs: number): Promise<number> {
  const from = Date.now();
  let last = "";
  while (Date.now() - from < limitMs) {
    last = await check();
    if (last === status) return Date.now() - from;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`still ${last} after ${limitMs} ms (wanted ${status})`);
}

describe("a service without its dependencies", () => {
  it("gets its database connections back after PostgreSQL restarts under transactions in flight", async () => {
    const postgres = owned(await startRestartablePostgres());
    await postgres.createDatabase("pool");
    const orm = await openDatabase({ url: postgres.urlFor("pool"), entities: [], migrationsPath: "/nonexistent", runMigrations: false, poolMax: 2 });
    let closed = false;
    cleanup.push(async () => {
      if (!closed) await orm.close(true);
    });
    let stopped = false;
    const busy = (async () => {
      while (!stopped) {
        await orm.em
          .fork()
          .transactional(async (em) => {
            await em.execute("select pg_sleep(0.05)");
          })
          .catch(() => undefined);
      }
    })();
    await eventually(async () => (await orm.em.fork().execute<{ n: number }[]>("select 1 as n"))[0]?.n === 1);
    await postgres.stop();
    await postgres.start();
    stopped = true;
    await busy;
    // More transactions than the pool has connections: a connection kept by a failed rollback would block them.
    for (let i = 0; i < 4; i += 1) {
      expect(await orm.em.fork().transactional(async (em) => (await em.execute<{ n: number }[]>("select 1 as n"))[0]?.n)).toBe(1);
    }
    await orm.close(true);
    closed = true;
  });

  it("starts and answers gRPC while NATS is down; an event recorded meanwhile reaches its consumer once NATS starts", async () => {
    const postgres = owned(await startRestartablePostgres());
    await postgres.createDatabase("notes_nats_down");
    const nats = owned(await startRestartableNats({ started: false }));
    const context = `notes${randomBytes(4).toString("hex")}`;
    const received: EventEnvelope[] = [];
    const config = loadConfig(serviceConfigShape, { DATABASE_URL: postgres.urlFor("notes_nats_down"), NATS_URL: nats.url, SHUTDOWN_GRACE_MS: "500" });
    const service = started(
      await startService(
        notesSpec(context, received, async () => {}),
        config,
        { logger },
      ),
    );

    expect(await checkHealth(service.address)).toBe("SERVING");
    const client = testClient(NotesService, service.address);
    cleanup.push(async () => client.close());
    const added = await client.addNote({ text: "written while NATS was down" });
    expect(added.id).toEqual(expect.any(String));
    expect(received).toEqual([]);

    await nats.start();
    const event = await eventually(async () => received.find((envelope) => envelope.payload.text === "written while NATS was down"), 30_000);
    expect(event).toMatchObject({ type: "note.added", subject: `imprint.${context}.v1.note.added` });
    expect(received.filter((envelope) => envelope.id === event.id)).toHaveLength(1);
  });

  it("creates its stream and consumers again after NATS restarted without its store", async () => {
    const nats = owned(await startRestartableNats());
    const context = `notes${randomBytes(4).toString("hex")}`;
    const received: EventEnvelope[] = [];
    const config = loadConfig(serviceConfigShape, {
      DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "notes_wiped"),
      NATS_URL: nats.url,
      SHUTDOWN_GRACE_MS: "500",
    });
    const service = started(
      await startService(
        notesSpec(context, received, async () => {}),
        config,
        { logger },
      ),
    );
    const client = testClient(NotesService, service.address);
    cleanup.push(async () => client.close());
    await client.addNote({ text: "before" });
    await eventually(async () => received.some((envelope) => envelope.payload.text === "before"));

    await nats.stop();
    await nats.wipe();
    await nats.start();
    await client.addNote({ text: "after the store was lost" });
    await eventually(async () => received.some((envelope) => envelope.payload.text === "after the store was lost"), 60_000);
    expect(received.filter((envelope) => envelope.payload.text === "after the store was lost")).toHaveLength(1);
  });

  it("stops promptly when NATS never came up", async () => {
    const nats = owned(await startRestartableNats({ started: false }));
    const config = loadConfig(serviceConfigShape, {
      DATABASE_URL: await createTestDatabase(inject("pgAdminUrl"), "notes_no_nats"),
      NATS_URL: nats.url,
      SHUTDOWN_GRACE_MS: "500",
    });
    const service = await startService(
      notesSpec(`notes${randomBytes(4).toString("hex")}`, [], async () => {}),
      config,
      { logger },
    );
    expect(await checkHealth(service.address)).toBe("SERVING");
    await service.stop();
    expect(await checkHealth(service.address)).toBe("UNREACHABLE");
    expect(await service.orm.isConnected()).toBe(false);
  });

  it("reports NOT_SERVING (overall and per service) within 5 s of losing its database, SERVING again when it returns; liveness stays SERVING; a NATS outage changes nothing", async () => {
    const postgres = owned(await startRestartablePostgres());
    await postgres.createDatabase("notes_health");
    const nats = owned(await startRestartableNats());
    const context = `notes${randomBytes(4).toString("hex")}`;
    const config = loadConfig(serviceConfigShape, { DATABASE_URL: postgres.urlFor("notes_health"), NATS_URL: nats.url, SHUTDOWN_GRACE_MS: "500" });
    const service = started(
      await startService(
        notesSpec(context, [], async () => {}),
        config,
        { logger },
      ),
    );
    const overall = () => checkHealth(service.address);
    const notes = () => checkHealth(service.address, "test.Notes");
    const liveness = () => checkHealth(service.address, LIVENESS_SERVICE);
    expect([await overall(), await notes(), await liveness()]).toEqual(["SERVING", "SERVING", "SERVING"]);

    // NATS away: events wait, requests do not; the process stays ready.
    await nats.stop();
    const client = testClient(NotesService, service.address);
    cleanup.push(async () => client.close());
    await client.addNote({ text: "while NATS is down" });
    // Long enough for the probe to have noticed anything (it asks every second).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect([await overall(), await notes()]).toEqual(["SERVING", "SERVING"]);
    await nats.start();

    await postgres.stop();
    // Stopping PostgreSQL waits for its connections to end: the outage began at the latest now.
    const notServingAfter = await timeUntil(overall, "NOT_SERVING", patient(5_000));
    expect(notServingAfter).toBeLessThanOrEqual(patient(5_000));
    expect(await notes()).toBe("NOT_SERVING");
    expect(await liveness()).toBe("SERVING");

    await postgres.start();
    await timeUntil(overall, "SERVING", patient(10_000));
    expect(await notes()).toBe("SERVING");
    expect(await client.addNote({ text: "after the database came back" })).toMatchObject({ id: expect.any(String) });
    expect(logLines.some((line) => line.includes("not ready (health NOT_SERVING)"))).toBe(true);
  });
});
