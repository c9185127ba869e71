import { randomUUID } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { IdempotentCalls, PRUNE_IDEMPOTENT_CALLS_JOB, pruneIdempotentCallsJob } from "../src/db/idempotent-calls.js";
import { openDatabase } from "../src/db/orm.js";
import { createUnitOfWork } from "../src/db/unit-of-work.js";
import { AppError } from "../src/errors.js";
import { createPromiseClient, type PromiseClient } from "../src/grpc/client.js";
import { ABANDON_MARGIN_MS, ANSWER_MARGIN_MS, IDEMPOTENCY_KEY_METADATA } from "../src/grpc/keyed-calls.js";
import { startGrpcServer, type GrpcServerHandle } from "../src/grpc/server.js";
import { JobRunner } from "../src/jobs/job-runner.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually, failure, TestClock } from "../src/testing/index.js";
import { jsonMethod } from "./support/json-method.js";
import { Note } from "./support/notes-service.js";

/**
 * Keyed calls through a real gRPC server and PostgreSQL: a write sent with the
 * `imprint-idempotency-key` metadata is answered at most once, whatever happens to its answer.
 */
const MarksService = {
  addMark: jsonMethod<{ text: string }, { id: string; text: string }>("/test.Marks/AddMark"),
  removeMark: jsonMethod<{ text: string }, { removed: number }>("/test.Marks/RemoveMark"),
  countMarks: jsonMethod<{ text: string }, { count: number }>("/test.Marks/CountMarks"),
} as const;

const JOB = "marks-from-job";
const CALL_TIMEOUT_MS = 10_000;

let orm: MikroORM;
let server: GrpcServerHandle;
let client: PromiseClient<typeof MarksService>;
let jobs: JobRunner;
const clock = new TestClock();
const logger = createLogger("keyed-calls-test", { level: "error", write: () => {} });
/** How often each text's work ran inside a transaction (what a duplicate would show). */
const workRuns = new Map<string, number>();
/** A run of "hold:*" waits inside its transaction, its claim made, until the test releases it; `settled` once its transaction ended. */
let holding: { entered: () => void; release: Promise<void>; settled: () => void } | undefined;
/** Whether the next "two-steps, stopped between" stops between its transactions. */
let stopBetween = false;
/** The job's run, when a call woke it (see "wake-job-then-refuse"). */
let jobRan: Promise<void> = Promise.resolve();
let jobDone: () => void = () => {};

beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "keyed_calls");
  orm = await openDatabase({ url, entities: [Note], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
  const keyedCalls = new IdempotentCalls(orm, clock.now);
  const unitOfWork = createUnitOfWork({ notify: () => {} }, keyedCalls);

  const addNote = (em: EntityManager, text: string) => {
    const held = text.startsWith("hold:") ? holding : undefined;
    if (held) holding = undefined;
    return unitOfWork
      .run(em, async (tx) => {
        workRuns.set(text, (workRuns.get(text) ?? 0) + 1);
        if (held) {
          held.entered();
          await held.release;
        }
        const note = tx.create(Note, { id: randomUUID(), text, createdAt: clock.now() });
        return note;
      })
      .finally(() => held?.settled());
  };

  jobs = new JobRunner({ orm, logger, clock: clock.now });
  jobs.start([
    {
      name: JOB,
      intervalMs: 3_600_000,
      run: async () => {
        const done = jobDone;
        // Its own write, through the same unit of work as the calls.
        await unitOfWork.run(orm.em.fork(), async (tx) => void tx.create(Note, { id: randomUUID(), text: "from the job", createdAt: clock.now() }));
        done();
      },
    },
  ]);

  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    keyedCalls,
    services: [
      {
        name: "test.Marks",
        definition: MarksService,
        implementation: {
          addMark: async ({ text }) => {
            if (!text) throw AppError.invalidArgument("text: must not be empty");
            if (text.startsWith("two-")) {
              // A first transaction (claiming the key, or not: an intent a repeat may write again), then the write itself.
              const claimsKeyedCall = text.startsWith("two-claims");
              await unitOfWork.run(orm.em.fork(), async (tx) => void tx.create(Note, { id: randomUUID(), text: `${text} (first)`, createdAt: clock.now() }), {
                claimsKeyedCall,
              });
              if (stopBetween) {
                stopBetween = false;
                throw new AppError("unavailable", "stopped between the two transactions");
              }
            }
            if (text === "wake-job-then-refuse") {
              jobRan = new Promise((resolve) => (jobDone = resolve));
              jobs.wake(JOB);
              await jobRan;
              throw AppError.invalidArgument("text: refused after waking the job");
            }
            const note = await addNote(orm.em.fork(), text);
            // The process losing its database (or dying) after the commit: the answer is never kept.
            if (text.startsWith("lose:")) throw new AppError("unavailable", "lost the database after the commit");
            return { id: note.id, text };
          },
          removeMark: async ({ text }) => ({ removed: await orm.em.fork().nativeDelete(Note, { text }) }),
          countMarks: async ({ text }) => ({ count: await orm.em.fork().count(Note, { text }) }),
        },
      },
    ],
  });
  client = createPromiseClient(MarksService, server.address, { defaultTimeoutMs: CALL_TIMEOUT_MS });
  // The job's first run, on taking its lease, is done before a test wakes it.
  await eventually(async () => jobs.holds(JOB) && (await orm.em.fork().count(Note, { text: "from the job" })) === 1);
});
afterAll(async () => {
  client?.close();
  await jobs?.stop();
  await server?.shutdown(1_000);
  await orm?.close(true);
});

const keyed = (key: string) => {
  const metadata = new Metadata();
  metadata.set(IDEMPOTENCY_KEY_METADATA, key);
  return { metadata };
};
const notes = (text: string) => orm.em.fork().count(Note, { text });
const keptCalls = (key: string) =>
  orm.em.fork().execute<{ method: string; response: Buffer | null }[]>("select method, response from idempotent_calls where key = ?", [key]);

describe("a keyed write", () => {
  it("runs once: a repeat is answered the kept answer and runs nothing", async () => {
    const key = randomUUID();
    const first = await client.addMark({ text: "once" }, keyed(key));
    const again = await client.addMark({ text: "once" }, keyed(key));
    expect(again).toEqual(first);
    expect(await notes("once")).toBe(1);
    expect(workRuns.get("once")).toBe(1);
    const [kept] = await keptCalls(key);
    expect(kept?.method).toBe("/test.Marks/AddMark");
    expect(JSON.parse(kept!.response!.toString())).toEqual(first);
  });

  it("without the metadata runs every time and leaves no record", async () => {
    const before = await orm.em.fork().execute<{ count: string }[]>("select count(*) from idempotent_calls");
    await client.addMark({ text: "unkeyed" });
    await client.addMark({ text: "unkeyed" });
    expect(await notes("unkeyed")).toBe(2);
    expect(await orm.em.fork().execute<{ count: string }[]>("select count(*) from idempotent_calls")).toEqual(before);
  });

  it("keeps the answer of a write made outside a unit of work, and replays it", async () => {
    const key = randomUUID();
    await client.addMark({ text: "removable" });
    expect(await client.removeMark({ text: "removable" }, keyed(key))).toEqual({ removed: 1 });
    await client.addMark({ text: "removable" });
    // The repeat is answered what the first run answered; the note added since stays.
    expect(await client.removeMark({ text: "removable" }, keyed(key))).toEqual({ removed: 1 });
    expect(await notes("removable")).toBe(1);
  });

  it("refuses the key for another method (conflict), and reads ignore it", async () => {
    const key = randomUUID();
    await client.addMark({ text: "first method" }, keyed(key));
    const refused = await failure(client.removeMark({ text: "first method" }, keyed(key)));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toMatch(/used for another call \(\/test\.Marks\/AddMark\)/);
    expect(await notes("first method")).toBe(1);
    expect(await client.countMarks({ text: "first method" }, keyed(key))).toEqual({ count: 1 });
  });

  it("sent twice at once: one runs, the other waits for it and is answered its answer", async () => {
    const key = randomUUID();
    const { inside, release } = holdNextRun();
    const first = client.addMark({ text: "hold:concurrent" }, keyed(key));
    await inside;
    // The first holds its claim uncommitted: the second finds no answer, runs, and waits on the claim.
    const second = client.addMark({ text: "hold:concurrent" }, keyed(key)).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error: error as AppError }),
    );
    await eventually(async () => {
      const waiting = await orm.em
        .fork()
        .execute<{ count: string }[]>("select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into idempotent_calls%'");
      return Number(waiting[0]?.count) > 0;
    });
    release();
    const answer = await first;
    const outcome = await second;
    expect(outcome).toEqual({ answer });
    // Its transaction rolled back at the claim, before its work ran.
    expect(workRuns.get("hold:concurrent")).toBe(1);
    expect(await notes("hold:concurrent")).toBe(1);
    expect(await client.addMark({ text: "hold:concurrent" }, keyed(key))).toEqual(answer);
  });

  it("whose answer was lost after the commit is never run again: UNAVAILABLE while it may still answer, then conflict", async () => {
    const key = randomUUID();
    expect((await failure(client.addMark({ text: "lose:answer" }, keyed(key)))).code).toBe("unavailable");
    expect(await notes("lose:answer")).toBe(1);
    expect((await keptCalls(key))[0]?.response).toBeNull();

    const soon = await failure(client.addMark({ text: "lose:answer" }, keyed(key)));
    expect(soon).toMatchObject({ code: "unavailable", message: "the first call with this idempotency key is still answering; retry" });
    clock.advance(CALL_TIMEOUT_MS + ANSWER_MARGIN_MS + 1_000);
    const later = await failure(client.addMark({ text: "lose:answer" }, keyed(key)));
    expect(later.code).toBe("conflict");
    expect(later.message).toMatch(/was applied, but its answer was lost before it was kept; read the result instead of retrying/);
    expect(workRuns.get("lose:answer")).toBe(1);
    expect(await notes("lose:answer")).toBe(1);
  });

  it("given up by its caller before its commit (a paused process) is not applied: a repeat runs it", async () => {
    const key = randomUUID();
    const { inside, release } = holdNextRun();
    const first = failure(client.addMark({ text: "hold:abandoned" }, { ...keyed(key), timeoutMs: 300 }));
    await inside;
    expect((await first).code).toBe("deadline_exceeded");
    release();
    // The repeat waits on the first run's uncommitted claim, which rolls back: the repeat runs the write.
    const repeat = await client.addMark({ text: "hold:abandoned" }, keyed(key));
    expect(repeat.text).toBe("hold:abandoned");
    expect(workRuns.get("hold:abandoned")).toBe(2);
    expect(await notes("hold:abandoned")).toBe(1);
    expect(await client.addMark({ text: "hold:abandoned" }, keyed(key))).toEqual(repeat);
  });

  it("about to be given up by its caller when it would commit (within ABANDON_MARGIN_MS of the deadline) is not applied: a repeat runs it", async () => {
    const key = randomUUID();
    const { inside, release } = holdNextRun();
    const timeoutMs = 3 * ABANDON_MARGIN_MS;
    const started = Date.now();
    const first = failure(client.addMark({ text: "hold:margin" }, { ...keyed(key), timeoutMs }));
    await inside;
    // Released with the caller still waiting, but with less than the margin left before its deadline.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + timeoutMs - ABANDON_MARGIN_MS / 2 - Date.now())));
    release();
    // Answered an error (the roll-back's, or the deadline's if the machine is slow): never the write.
    expect(["unavailable", "deadline_exceeded"]).toContain((await first).code);
    const repeat = await client.addMark({ text: "hold:margin" }, keyed(key));
    expect(repeat.text).toBe("hold:margin");
    expect(workRuns.get("hold:margin")).toBe(2);
    expect(await notes("hold:margin")).toBe(1);
  });

  it("sent without the metadata and given up by its caller before its commit is not applied either", async () => {
    const { inside, release, settled } = holdNextRun();
    const first = failure(client.addMark({ text: "hold:unkeyed-abandoned" }, { timeoutMs: 300 }));
    await inside;
    expect((await first).code).toBe("deadline_exceeded");
    release();
    await settled;
    expect(workRuns.get("hold:unkeyed-abandoned")).toBe(1);
    expect(await notes("hold:unkeyed-abandoned")).toBe(0);
    // Its caller still waiting, the same write commits.
    const { inside: again, release: releaseAgain } = holdNextRun();
    const second = client.addMark({ text: "hold:unkeyed-abandoned" });
    await again;
    releaseAgain();
    expect((await second).text).toBe("hold:unkeyed-abandoned");
    expect(await notes("hold:unkeyed-abandoned")).toBe(1);
  });

  it("refused before any commit keeps nothing: a repeat runs it", async () => {
    const key = randomUUID();
    expect((await failure(client.addMark({ text: "" }, keyed(key)))).code).toBe("invalid_argument");
    expect(await keptCalls(key)).toEqual([]);
  });
});

/**
 * Makes the next "hold:*" run wait inside its transaction: `inside` once it is there, `release` lets
 * it go on, `settled` once its transaction committed or rolled back.
 */
function holdNextRun(): { inside: Promise<void>; release: () => void; settled: Promise<void> } {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  let done!: () => void;
  const settled = new Promise<void>((resolve) => (done = resolve));
  holding = { entered, release: new Promise<void>((resolve) => (release = resolve)), settled: done };
  return { inside, release, settled };
}

describe("a keyed call's transactions", () => {
  it("claim the key once: the call's second transaction does not conflict with its first", async () => {
    const key = randomUUID();
    const answer = await client.addMark({ text: "two-claims" }, keyed(key));
    expect(await client.addMark({ text: "two-claims" }, keyed(key))).toEqual(answer);
    expect(await notes("two-claims (first)")).toBe(1);
    expect(await notes("two-claims")).toBe(1);
  });

  it("a stop after the first claiming one is never run again", async () => {
    const key = randomUUID();
    stopBetween = true;
    expect((await failure(client.addMark({ text: "two-claims, stopped" }, keyed(key)))).code).toBe("unavailable");
    clock.advance(CALL_TIMEOUT_MS + ANSWER_MARGIN_MS + 1_000);
    expect((await failure(client.addMark({ text: "two-claims, stopped" }, keyed(key)))).code).toBe("conflict");
    expect(await notes("two-claims, stopped (first)")).toBe(1);
  });

  it("one that claims nothing (claimsKeyedCall: false) leaves a stop after it to a repeat, which runs the call again", async () => {
    const key = randomUUID();
    const text = "two-steps, stopped between";
    stopBetween = true;
    expect((await failure(client.addMark({ text }, keyed(key)))).code).toBe("unavailable");
    expect(await keptCalls(key)).toEqual([]);
    const answer = await client.addMark({ text }, keyed(key));
    expect(answer.text).toBe(text);
    expect(await notes(text)).toBe(1);
    expect(await notes(`${text} (first)`)).toBe(2);
    expect(await client.addMark({ text }, keyed(key))).toEqual(answer);
  });

  it("do not reach a background job the call woke: the job's transaction claims nothing", async () => {
    const key = randomUUID();
    const jobNotesBefore = await notes("from the job");
    expect((await failure(client.addMark({ text: "wake-job-then-refuse" }, keyed(key)))).code).toBe("invalid_argument");
    expect(await notes("from the job")).toBe(jobNotesBefore + 1);
    // Nothing of the call committed, so nothing is claimed: a repeat runs (and is refused again).
    expect(await keptCalls(key)).toEqual([]);
    expect((await failure(client.addMark({ text: "wake-job-then-refuse" }, keyed(key)))).code).toBe("invalid_argument");
  });
});

describe("pruning keyed calls", () => {
  it("deletes, in batches, the calls claimed more than a day ago; a full batch asks to run again", async () => {
    const job = pruneIdempotentCallsJob({ orm, logger, clock: clock.now, batchSize: 2 });
    expect(job.name).toBe(PRUNE_IDEMPOTENT_CALLS_JOB);
    const old = [randomUUID(), randomUUID(), randomUUID()];
    for (const key of old) await client.addMark({ text: "pruned" }, keyed(key));
    clock.advance(24 * 3_600_000 + 1_000);
    const recent = randomUUID();
    await client.addMark({ text: "pruned" }, keyed(recent));

    const keysLeft = async () => (await Promise.all([...old, recent].map(async (key) => ((await keptCalls(key)).length > 0 ? [key] : [])))).flat();
    const signal = new AbortController().signal;
    // Three (or more, from the tests before) past the retention, two a batch: the first run asks for another.
    expect(await job.run(signal)).toBe(true);
    while ((await job.run(signal)) === true);
    expect(await keysLeft()).toEqual([recent]);
    // A repeat of a pruned call is a new call: it runs again.
    await client.addMark({ text: "pruned" }, keyed(old[0]!));
    expect(await notes("pruned")).toBe(5);
  });
});
