import { AsyncLocalStorage } from "node:async_hooks";
import { defineEntity, p, type EntityManager, type MikroORM } from "@mikro-orm/postgresql";
import { ClaimedByAnotherCall, type KeptCall, type KeyedCall, type KeyedCallLedger } from "../grpc/keyed-calls.js";
import type { JobSpec } from "../jobs/job-runner.js";
import type { Logger } from "../logger.js";
import { executeStatement, queryRows, sql, toDate } from "./sql.js";

/**
 * A keyed call a service answered or is answering (see grpc/keyed-calls.ts): claimed in the
 * transaction of its write, so a row exists exactly when the write committed, then its answer.
 */
export const IdempotentCallSchema = defineEntity({
  name: "IdempotentCall",
  tableName: "idempotent_calls",
  properties: {
    key: p.string().length(255).primary(),
    method: p.string().length(255),
    claimedAt: p.datetime().index(),
    answerDueBy: p.datetime(),
    response: p.blob().nullable(),
  },
});
export class IdempotentCall extends IdempotentCallSchema.class {}
IdempotentCallSchema.setClass(IdempotentCall);

/** How long a service remembers keyed calls: as long as the gateway keeps an Idempotency-Key's answer (24 h). */
export const IDEMPOTENT_CALLS_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The runtime's job that prunes them (its lease name in `job_leases`). */
export const PRUNE_IDEMPOTENT_CALLS_JOB = "runtime-prune-idempotent-calls";

/**
 * A service's keyed calls in its database: the ledger its gRPC server answers keyed calls with,
 * and the claim its unit of work writes into each transaction of such a call. The call in scope
 * travels with the handler's async work (AsyncLocalStorage); background jobs a handler wakes run
 * outside it (the job runner detaches them).
 */
export class IdempotentCalls implements KeyedCallLedger {
  private readonly scope = new AsyncLocalStorage<KeyedCall>();
  /** Calls whose handler has ended. */
  private readonly ended = new WeakSet<KeyedCall>();

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: () => Date,
  ) {}

  now(): Date {
    return this.clock();
  }

  async find(key: string): Promise<KeptCall | undefined> {
    const [row] = await queryRows(
      this.orm.em.fork(),
      sql<{
        method: string;
        response: Buffer | null;
        answer_due_by: Date | string;
      }>`select method, response, answer_due_by from idempotent_calls where key = ${key}`,
    );
    return row && { method: row.method, response: row.response, answerDueBy: toDate(row.answer_due_by) };
  }

  within<T>(call: KeyedCall, work: () => Promise<T>): Promise<T> {
    return this.scope.run(call, () => work().finally(() => this.ended.add(call)));
  }

  /**
   * The write call whose handler is running here, if any. Work the handler started and left
   * running (a timer, a woken loop) keeps its async context but not the call once the handler ended.
   */
  current(): KeyedCall | undefined {
    const call = this.scope.getStore();
    return call && !this.ended.has(call) ? call : undefined;
  }

  /**
   * Claims the call's key inside `tx`, first thing in the transaction. Another run holding the
   * same key (not yet committed) makes this wait for it; once it committed, nothing is inserted
   * and this run fails UNAVAILABLE (its transaction rolls back): a retry finds the first's answer.
   */
  async claim(tx: EntityManager, call: KeyedCall, key: string): Promise<void> {
    const rows = await queryRows(
      tx,
      sql<{
        key: string;
      }>`insert into idempotent_calls (key, method, claimed_at, answer_due_by) values (${key}, ${call.method}, ${this.clock()}, ${call.answerDueBy}) on conflict (key) do nothing returning key`,
    );
    if (rows.length === 0) throw new ClaimedByAnotherCall();
  }

  /** Keeps the answer; a call that wrote outside a unit of work (or nothing) gets its row here. */
  async keep(call: KeyedCall & { key: string }, response: Buffer): Promise<void> {
    await executeStatement(
      this.orm.em.fork(),
      sql`insert into idempotent_calls (key, method, claimed_at, answer_due_by, response) values (${call.key}, ${call.method}, ${this.clock()}, ${call.answerDueBy}, ${response})
       on conflict (key) do update set response = excluded.response where idempotent_calls.response is null`,
    );
  }
}

/**
 * Deletes keyed calls claimed more than `retentionMs` ago (default IDEMPOTENT_CALLS_RETENTION_MS),
 * one batch per run; a full batch runs again at once.
 */
export function pruneIdempotentCallsJob(options: {
  orm: MikroORM;
  logger: Logger;
  clock: () => Date;
  retentionMs?: number;
  batchSize?: number;
  intervalMs?: number;
}): JobSpec {
  const batchSize = options.batchSize ?? 5_000;
  const retentionMs = options.retentionMs ?? IDEMPOTENT_CALLS_RETENTION_MS;
  return {
    name: PRUNE_IDEMPOTENT_CALLS_JOB,
    intervalMs: options.intervalMs ?? 3_600_000,
    run: async () => {
      const before = new Date(options.clock().getTime() - retentionMs);
      const rows = await queryRows(
        options.orm.em.fork(),
        sql<{
          key: string;
        }>`delete from idempotent_calls where key in (select key from idempotent_calls where claimed_at < ${before} limit ${batchSize}) returning key`,
      );
      if (rows.length > 0) options.logger.debug("pruned keyed-call records", { deleted: rows.length, before: before.toISOString() });
      return rows.length === batchSize;
    },
  };
}
