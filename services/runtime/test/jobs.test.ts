import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../src/db/orm.js";
import { JobRunner, type JobSpec } from "../src/jobs/job-runner.js";
import { createLogger } from "../src/logger.js";
import { createTestDatabase, eventually } from "../src/testing/index.js";

let orm: MikroORM;
beforeAll(async () => {
  const url = await createTestDatabase(inject("pgAdminUrl"), "job_runner");
  orm = await openDatabase({ url, entities: [], migrationsPath: "/nonexistent", runMigrations: false });
  await orm.schema.create();
});
afterAll(() => orm?.close(true));

const logLines: string[] = [];
const logger = createLogger("jobs-test", { level: "debug", write: (line) => logLines.push(line) });

/** The leases' time: moves only when a test moves it. */
let now = Date.parse("2026-05-01T08:00:00.000Z");
const clock = () => new Date(now);
const LEASE_MS = 1_000;

const runners: JobRunner[] = [];
function runner(holder: string, jobs: JobSpec[]): JobRunner {
  const created = new JobRunner({ orm, logger, clock, leaseMs: LEASE_MS, heartbeatMs: 20, holder });
  runners.push(created);
  created.start(jobs);
  return created;
}
afterEach(async () => {
  await Promise.all(runners.splice(0).map((created) => created.stop()));
  await orm.em.fork().execute("delete from job_leases");
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("job runner", () => {
  it("runs a job on one of two runners sharing a database; the other takes over once the holder's lease ran out", async () => {
    const runs: string[] = [];
    const sweep = (holder: string): JobSpec => ({ name: "sweep", intervalMs: 10, run: async () => void runs.push(holder) });
    const a = runner("a", [sweep("a")]);
    await eventually(async () => runs.includes("a"));
    const b = runner("b", [sweep("b")]);
    await b.beat();
    // A keeps running it (however slowly this machine runs), B never does: the clock stays within the lease.
    await eventually(async () => runs.filter((holder) => holder === "a").length > 2);
    await b.beat();
    expect(a.holds("sweep")).toBe(true);
    expect(b.holds("sweep")).toBe(false);
    expect(runs).not.toContain("b");

    // The holder crashes: it neither renews nor hands back its lease, which B's heartbeat sees unexpired.
    await a.stop({ release: false });
    await b.beat();
    expect(b.holds("sweep")).toBe(false);
    expect(runs).not.toContain("b");

    now += LEASE_MS;
    await eventually(async () => runs.includes("b"));
    expect(b.holds("sweep")).toBe(true);
    const [lease] = await orm.em.fork().execute<{ holder: string }[]>("select holder from job_leases where name = 'sweep'");
    expect(lease?.holder).toBe("b");
  });

  it("hands the job over at once when its holder stops", async () => {
    const runs: string[] = [];
    const purge = (holder: string): JobSpec => ({ name: "purge", intervalMs: 60_000, run: async () => void runs.push(holder) });
    const a = runner("a", [purge("a")]);
    await eventually(async () => runs.includes("a"));
    const b = runner("b", [purge("b")]);
    await b.beat();
    expect(b.holds("purge")).toBe(false);
    await a.stop();
    // No need to wait for the lease to run out (the clock stands still).
    await eventually(async () => (await b.beat(), b.holds("purge")));
    await eventually(async () => runs.includes("b"));
  });

  it("spreads over the replicas by job: each job has a lease of its own", async () => {
    const a = runner("a", [{ name: "first", intervalMs: 60_000, run: async () => {} }]);
    await eventually(async () => a.holds("first"));
    const b = runner("b", [
      { name: "first", intervalMs: 60_000, run: async () => {} },
      { name: "second", intervalMs: 60_000, run: async () => {} },
    ]);
    await b.beat();
    expect([b.holds("first"), b.holds("second")]).toEqual([false, true]);
  });

  it("aborts the run under way when another replica took the lease, and stops running the job", async () => {
    let signal: AbortSignal | undefined;
    let runs = 0;
    const a = runner("a", [
      {
        name: "process",
        intervalMs: 10,
        run: (aborted) => {
          runs += 1;
          signal = aborted;
          return new Promise<void>((resolve) => aborted.addEventListener("abort", () => resolve()));
        },
      },
    ]);
    await eventually(async () => signal);
    // As if this runner had stalled past its lease and another had taken the job meanwhile.
    await orm.em.fork().execute("update job_leases set holder = 'elsewhere', expires_at = ? where name = 'process'", [new Date(now + 60_000)]);
    await a.beat();
    expect(signal!.aborted).toBe(true);
    expect(a.holds("process")).toBe(false);
    await pause(100);
    expect(runs).toBe(1);
  });

  it("runs a held job at once when woken, again right after a run under way, and again while it says more work waits", async () => {
    let runs = 0;
    let release: (() => void) | undefined;
    let backlog = 0;
    const a = runner("a", [
      {
        name: "queue",
        intervalMs: 60_000,
        run: async () => {
          runs += 1;
          if (runs === 2) await new Promise<void>((resolve) => (release = resolve));
          if (backlog > 0) backlog -= 1;
          return backlog > 0;
        },
      },
    ]);
    await eventually(async () => runs === 1);
    a.wake("queue");
    await eventually(async () => release);
    // Woken during the second run: a third follows it.
    a.wake("queue");
    backlog = 3;
    release!();
    // The second run leaves a backlog of 2, so runs follow until it is done: 2, 3 (1 left), 4 (0 left).
    await eventually(async () => runs === 4);
    await pause(100);
    expect(runs).toBe(4);
  });

  it("logs a failed run and runs the job again after its interval", async () => {
    let runs = 0;
    runner("a", [
      {
        name: "flaky",
        intervalMs: 20,
        run: async () => {
          runs += 1;
          if (runs === 1) throw new Error("first run fails");
        },
      },
    ]);
    await eventually(async () => runs >= 2);
    expect(logLines.some((line) => line.includes("background job failed") && line.includes("flaky"))).toBe(true);
  });

  it("refuses job names that cannot key a lease and names defined twice", () => {
    const job = (name: string): JobSpec => ({ name, intervalMs: 10, run: async () => {} });
    expect(() => new JobRunner({ orm, logger }).start([job("no spaces")])).toThrow(/must match/);
    expect(() => new JobRunner({ orm, logger }).start([job("twice"), job("twice")])).toThrow(/defined twice/);
  });
});
