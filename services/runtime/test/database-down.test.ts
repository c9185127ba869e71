import { randomBytes, randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadConfig, serviceConfigShape } from "../src/config.js";
import { AppError, infrastructureFailure } from "../src/errors.js";
import { getFreePort } from "../src/infrastructure/ports.js";
import { createLogger } from "../src/logger.js";
import { runtimeDeps, startService, type RunningService } from "../src/service.js";
import { createTestDatabase, eventually, patient, startTcpProxy, testClient, type TcpProxy } from "../src/testing/index.js";
import { testNatsUrl } from "../src/testing/nats.js";
import { jsonMethod } from "./support/json-method.js";

const NoteSchema = defineEntity({
  name: "Note",
  tableName: "notes",
  properties: { id: p.uuid().primary(), text: p.string(), createdAt: p.datetime() },
});
class Note extends NoteSchema.class {}
NoteSchema.setClass(Note);

const NotesService = {
  addNote: jsonMethod<{ text: string }, { id: string }>("/test.Notes/AddNote"),
  countNotes: jsonMethod<Record<string, never>, { count: number }>("/test.Notes/CountNotes"),
  /** A transaction that stays open `seconds`, so an outage can cut it. */
  holdTransaction: jsonMethod<{ seconds: number }, Record<string, never>>("/test.Notes/HoldTransaction"),
} as const;

const migrationsPath = join(dirname(fileURLToPath(import.meta.url)), "service-fixtures", "migrations");

describe("a service whose PostgreSQL goes away", () => {
  let proxy: TcpProxy;
  let service: RunningService;
  const lines: string[] = [];

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(inject("pgAdminUrl"), "dbdown");
    const direct = new URL(databaseUrl);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const config = loadConfig(serviceConfigShape, {
      DATABASE_URL: proxy.via(databaseUrl),
      NATS_URL: await testNatsUrl(),
      GRPC_PORT: String(await getFreePort()),
      SHUTDOWN_GRACE_MS: "1000",
    });
    const context = `notes${randomBytes(4).toString("hex")}`;
    service = await startService(
      {
        name: "notes",
        context,
        entities: [Note],
        migrationsPath,
        deps: runtimeDeps,
        grpc: ({ orm, unitOfWork }) => [
          {
            name: "test.Notes",
            definition: NotesService,
            implementation: {
              addNote: async ({ text }) => {
                const note = await unitOfWork.run(orm.em.fork(), async (em) => {
                  const created = em.create(Note, { id: randomUUID(), text, createdAt: new Date() });
                  em.persist(created);
                  return created;
                });
                return { id: note.id };
              },
              countNotes: async () => ({ count: await orm.em.fork().count(Note, {}) }),
              holdTransaction: async ({ seconds }) => {
                await orm.em.fork().transactional(async (tx) => tx.execute("select pg_sleep(?)", [seconds]));
                return {};
              },
            },
          },
        ],
      },
      config,
      { logger: createLogger("notes", { write: (line) => lines.push(line) }) },
    );
  });
  afterAll(async () => {
    await proxy?.start();
    await service?.stop();
    await proxy?.close();
  });

  it("answers unavailable (not internal) at once, without internals, and serves again when it returns", async () => {
    const client = testClient(NotesService, service.address);
    try {
      await client.addNote({ text: "before" });
      expect(await client.countNotes({})).toEqual({ count: 1 });

      await proxy.stop();
      for (const call of [() => client.countNotes({}), () => client.addNote({ text: "during" }), () => client.countNotes({})]) {
        const started = Date.now();
        const error = (await call().catch((e: unknown) => e)) as AppError;
        expect(error).toBeInstanceOf(AppError);
        expect(error.code).toBe("unavailable");
        expect(error.message).not.toMatch(/127\.0\.0\.1|:\d{2,5}|ECONN|select|insert/i);
        expect(Date.now() - started).toBeLessThan(patient(1_000));
      }
      expect(lines.some((line) => line.includes('"dependency unavailable"'))).toBe(true);
      expect(lines.some((line) => line.includes('"unhandled error in gRPC handler"'))).toBe(false);

      await proxy.start();
      await eventually(async () => (await client.addNote({ text: "after" }).catch(() => undefined)) !== undefined);
      expect(await client.countNotes({})).toEqual({ count: 2 });
    } finally {
      client.close();
    }
  });

  it("gives back the connections of transactions an outage cut, so the pool recovers whole", async () => {
    const client = testClient(NotesService, service.address);
    try {
      const pool = (await service.orm.em.getConnection().getNativeClient()) as { totalCount: number; idleCount: number };
      const cut = Array.from({ length: 3 }, () => client.holdTransaction({ seconds: 30 }).catch((e: unknown) => e));
      // All three hold a connection of the pool (and whatever else the service runs meanwhile).
      await eventually(async () => pool.totalCount - pool.idleCount >= 3);
      await proxy.stop();
      for (const error of await Promise.all(cut)) expect(error).toMatchObject({ code: "unavailable" });
      await proxy.start();
      await eventually(async () => (await client.countNotes({}).catch(() => undefined)) !== undefined);
      // None is still counted as in use (leaked): the pool can open all of its connections again.
      await eventually(async () => pool.totalCount === pool.idleCount);
    } finally {
      client.close();
    }
  });
});

describe("infrastructureFailure", () => {
  const withCode = (code: string, message = "failed") => Object.assign(new Error(message), { code });

  it.each([
    ["connection refused", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["connection reset", withCode("ECONNRESET")],
    ["admin_shutdown", withCode("57P01", "terminating connection due to administrator command")],
    ["cannot_connect_now", withCode("57P03", "the database system is starting up")],
    ["connection exception", withCode("08006")],
    ["too_many_connections", withCode("53300", "sorry, too many clients already")],
    ["connection terminated", new Error("Connection terminated unexpectedly")],
    ["pool acquire timeout", new Error("timeout exceeded when trying to connect")],
    ["refused on every address", Object.assign(new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")], ""), {})],
    ["a wrapped driver error", new Error("query failed", { cause: withCode("57P01") })],
  ])("%s → unavailable", (_name, error) => {
    expect(infrastructureFailure(error)).toMatchObject({ code: "unavailable" });
    expect(infrastructureFailure(error)?.message).not.toMatch(/127\.0\.0\.1|5432/);
  });

  it.each([
    ["a unique violation", withCode("23505")],
    ["a syntax error", withCode("42601")],
    ["a bug", new TypeError("x is undefined")],
    ["not an error", "boom"],
  ])("%s → nothing (a bug, answered internal)", (_name, error) => {
    expect(infrastructureFailure(error)).toBeUndefined();
  });

  it("keeps an AppError as it is", () => {
    const error = AppError.notFound("Space");
    expect(infrastructureFailure(error)).toBe(error);
  });
});
