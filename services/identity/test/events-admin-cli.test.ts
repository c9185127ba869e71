import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstream } from "@nats-io/jetstream";
import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger, openDatabase, PoisonEventError, ProcessedEvent, subscribe, type EventEnvelope, type Subscription } from "@imprint/runtime";
import { createTestDatabase, eventually, testNats, testNatsUrl, runNodeScript, type ScriptResult } from "@imprint/runtime/testing";

const ADMIN_CLI = fileURLToPath(new URL("../dist/cli/admin.js", import.meta.url));

/** Runs the compiled CLI the way an operator does (`npm run admin -- events ...`). */
function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<ScriptResult> {
  // What the machine says of the stack must not leak into a test that sets its own.
  return runNodeScript(ADMIN_CLI, ["events", "dead-letters", ...args], {
    cwd: options.cwd,
    env: { NATS_URL: undefined, IMPRINT_DATA_DIR: undefined, ...options.env },
  });
}

describe("admin CLI: events dead-letters", () => {
  let orm: MikroORM;
  let env: Record<string, string>;
  const subscriptions: Subscription[] = [];
  const logger = createLogger("dead-letters-cli", { write: () => {} });
  const context = `dl${randomBytes(4).toString("hex")}`;
  const consumer = `dl-consumer-${randomBytes(4).toString("hex")}`;
  const bystander = `dl-bystander-${randomBytes(4).toString("hex")}`;
  // The handler rejects events as invalid until the test "deploys the fix".
  let fixed = false;
  const applied: string[] = [];
  const bystanderSaw: string[] = [];

  beforeAll(async () => {
    orm = await openDatabase({
      url: await createTestDatabase(inject("pgAdminUrl"), "dead_letters_cli"),
      entities: [],
      migrationsPath: "/nonexistent",
      runMigrations: false,
    });
    await orm.schema.create();
    env = { NATS_URL: await testNatsUrl() };
  });
  afterAll(async () => {
    for (const subscription of subscriptions) await subscription.stop();
    await orm?.close(true);
  });

  async function publish(type: string, payload: Record<string, unknown>): Promise<EventEnvelope> {
    const envelope: EventEnvelope = {
      id: randomUUID(),
      type,
      subject: `imprint.${context}.v1.${type}`,
      occurredAt: new Date().toISOString(),
      organizationId: null,
      actor: null,
      payload,
    };
    await jetstream(await testNats()).publish(envelope.subject, JSON.stringify(envelope), { msgID: envelope.id });
    return envelope;
  }

  it('list prints "no dead letters" when there are none', async () => {
    expect(await runCli(["list"], { env })).toEqual({ code: 0, stdout: "no dead letters\n", stderr: "" });
  });

  it("lists and shows a poison event, then replays it to its consumer alone once fixed: applied exactly once", async () => {
    const nats = await testNats();
    const base = { nats, orm, context, filterSubject: `imprint.${context}.v1.>`, logger };
    const subscription = await subscribe({
      ...base,
      consumer,
      handler: async (envelope) => {
        if (!fixed) throw new PoisonEventError("widget.created: name must not be empty");
        applied.push(envelope.id);
      },
    });
    const other = await subscribe({ ...base, consumer: bystander, handler: async (envelope) => void bystanderSaw.push(envelope.id) });
    subscriptions.push(subscription, other);
    const event = await publish("widget.created", { name: "" });
    await eventually(async () => subscription.stats.deadLettered === 1 && bystanderSaw.length === 1);

    const listed = await runCli(["list"], { env });
    expect(listed.stderr).toBe("");
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^(\\d+) consumer=${consumer} type=widget\\.created event=${event.id} failedAt=\\d{4}-\\d\\d-\\d\\dT\\S+Z error="widget\\.created: name must not be empty" attempts=1$`,
      ),
    );
    const sequence = /^(\d+)/.exec(lines[0]!)![1]!;
    expect(await runCli(["list", "--consumer", bystander], { env })).toMatchObject({ code: 0, stdout: "no dead letters\n" });

    const shown = await runCli(["show", sequence], { env });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      sequence: Number(sequence),
      consumer,
      envelope: event,
      error: "widget.created: name must not be empty",
      attempts: 1,
      subject: event.subject,
      streamSequence: 1,
      failedAt: expect.any(String),
    });

    fixed = true;
    const replayed = await runCli(["replay", event.id], { env });
    expect(replayed).toEqual({ code: 0, stdout: `replayed ${sequence} (widget.created ${event.id}) of ${consumer}\n`, stderr: "" });
    await eventually(async () => applied.length === 1);
    expect(await runCli(["list"], { env })).toMatchObject({ code: 0, stdout: "no dead letters\n" });
    // Replaying again finds nothing; the event stays applied once.
    expect(await runCli(["replay", event.id], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining(`no dead letter ${event.id}`) });
    await eventually(async () => subscription.stats.handled === 1);
    expect(applied).toEqual([event.id]);
    expect(await orm.em.fork().count(ProcessedEvent, { consumer, eventId: event.id })).toBe(1);
    // The other consumer of the subject never saw it again.
    expect(bystanderSaw).toEqual([event.id]);
    expect(other.stats).toMatchObject({ handled: 1, skipped: 0 });
  });

  it("replays --all of one consumer, refuses a message that was never an event, and discards it", async () => {
    fixed = false;
    const first = await publish("widget.created", { name: "" });
    const second = await publish("widget.created", { name: "" });
    await jetstream(await testNats()).publish(`imprint.${context}.v1.widget.created`, "{not json", { msgID: randomUUID() });
    await eventually(async () => (await runCli(["list", "--consumer", consumer], { env })).stdout.trim().split("\n").length === 3);
    fixed = true;
    const replayed = await runCli(["replay", "--all", "--consumer", consumer], { env });
    expect(replayed.code).toBe(1);
    expect(replayed.stdout.trim().split("\n")).toHaveLength(2);
    expect(replayed.stderr).toMatch(/holds no event \(message body is not valid JSON\): nothing to replay; discard it/);
    await eventually(async () => applied.includes(first.id) && applied.includes(second.id));

    const left = (await runCli(["list", "--consumer", consumer], { env })).stdout.trim();
    expect(left).toMatch(/ type=- event=- /);
    // The bystander dead-lettered the malformed message too; only the one of `consumer` goes.
    expect(await runCli(["discard", "--all", "--consumer", consumer], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^discarded \d+ \(not an event\) of /),
    });
    expect(await runCli(["list", "--consumer", consumer], { env })).toMatchObject({ stdout: "no dead letters\n" });
    expect((await runCli(["list", "--consumer", bystander], { env })).stdout).toMatch(/ type=- event=- /);
  });

  it("finds NATS through stack.json, and says when it cannot", async () => {
    const dir = await mkdtemp(join(tmpdir(), "imprint-cli-nats-"));
    try {
      await mkdir(join(dir, ".imprint"));
      await writeFile(join(dir, ".imprint", "stack.json"), JSON.stringify({ natsUrl: env.NATS_URL }));
      const listed = await runCli(["list", "--consumer", consumer], { cwd: dir });
      expect(listed).toMatchObject({ code: 0, stdout: "no dead letters\n" });
      const none = await runCli(["list"], { cwd: join(dir, ".imprint") });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/^imprint-admin: cannot find NATS: no \.imprint\/stack\.json/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
