import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql, type RawBuilder } from "../db/sql.js";

/**
 * Where a work queue's items live: rows of one of the service's own tables (import runs, OpenAPI
 * specifications, Git syncs), whose state columns stay the service's. The queue adds one column
 * of its own meaning, the lease: until when a worker holds the item, or, after a failure, until
 * when the item waits before its next try; null when it is neither held nor waiting.
 */
export interface WorkQueueTable {
  /** The table whose rows are the items. */
  table: string;
  /** Its key column (default "id"). */
  key?: string;
  /** Its lease column, a nullable timestamptz (default "lease_expires_at"). */
  lease?: string;
  /**
   * Which rows are work at all, waiting or held (e.g. sql`status in ('pending', 'in-progress')`);
   * the others (done, failed, cancelled) are never claimed.
   */
  open: RawBuilder<unknown>;
  /** The order due items are claimed in, oldest first (e.g. sql`created_at, id`); needed by {@link WorkQueue.claim}. */
  order?: RawBuilder<unknown>;
}

/** A claim's terms. */
export interface ClaimTerms<Row> {
  now: Date;
  /** How long the claim holds unless renewed: a worker that crashed or stalled loses its items after it. */
  leaseMs: number;
  /**
   * The claim's own assignments besides the lease (the item's state, an attempt counter), e.g.
   * sql`status = 'in-progress', attempt = attempt + 1`; their expressions read the row as it was
   * (a `lease_expires_at is not null` there tells a take-over from a first claim).
   */
  set?: RawBuilder<unknown>;
  /** What the claim answers of each item (e.g. sql<{ id: string }>`id, attempt`). */
  returning: RawBuilder<Row>;
}

/** Which claim a worker holds, as a condition on the item's row (e.g. sql`attempt = ${claim.attempt}`): renewals, completion and release of a claim another worker took over change nothing. */
export interface HeldBy {
  holds: RawBuilder<unknown>;
}

/**
 * A claimable work queue over a table of the service (see {@link WorkQueueTable}), beside the
 * {@link JobRunner} that runs its workers. A worker claims due items (open, and no lease in force:
 * never claimed, handed back, their backoff over, or their holder's lease run out), each under a
 * lease; `FOR UPDATE SKIP LOCKED` lets workers on every replica claim side by side without
 * waiting on each other or taking the same item. It renews the lease while it works (long work,
 * outside any transaction), then completes the item or releases it, at once (it is stopping) or
 * after a backoff (it failed). Every step after the claim is fenced by {@link HeldBy}: a worker
 * whose item was taken over after its lease ran out finds out (false) and writes nothing.
 *
 * Each method runs one statement on `em`, inside its transaction when it has one, so a step can
 * commit together with the work it records.
 */
export class WorkQueue {
  private readonly table: RawBuilder<unknown>;
  private readonly key: RawBuilder<unknown>;
  private readonly lease: RawBuilder<unknown>;

  constructor(private readonly spec: WorkQueueTable) {
    this.table = sql.table(spec.table);
    this.key = sql.ref(spec.key ?? "id");
    this.lease = sql.ref(spec.lease ?? "lease_expires_at");
  }

  /** Claims up to `limit` due items (in the table's order) and answers them. */
  async claim<Row>(em: EntityManager, terms: ClaimTerms<Row> & { limit?: number }): Promise<Row[]> {
    if (!this.spec.order) throw new Error(`the work queue over ${this.spec.table} has no claim order`);
    const limit = terms.limit ?? 1;
    if (!(Number.isInteger(limit) && limit > 0)) throw new Error("a claim takes a positive whole number of items");
    return queryRows(
      em,
      sql<Row>`with due as (
          select ${this.key} as due_key from ${this.table}
           where (${this.spec.open}) and ${this.due(terms.now)}
           order by ${this.spec.order}
           limit ${limit}
           for update skip locked)
        update ${this.table} set ${this.assignments(terms)}
          from due where ${this.table}.${this.key} = due.due_key
        returning ${terms.returning}`,
    );
  }

  /**
   * Claims the item `key` if it is due, for work a request starts itself (and answers at once
   * when it is held: undefined). Waits for a transaction that has the row locked.
   */
  async claimKey<Row>(em: EntityManager, key: unknown, terms: ClaimTerms<Row>): Promise<Row | undefined> {
    const [row] = await queryRows(
      em,
      sql<Row>`update ${this.table} set ${this.assignments(terms)}
        where ${this.key} = ${key} and (${this.spec.open}) and ${this.due(terms.now)}
        returning ${terms.returning}`,
    );
    return row;
  }

  /** Extends the claim's lease (and applies `set`, e.g. progress); false when the claim is no longer held. */
  async renew(em: EntityManager, key: unknown, terms: HeldBy & { now: Date; leaseMs: number; set?: RawBuilder<unknown> }): Promise<boolean> {
    return this.update(em, key, terms, sql`${this.lease} = ${leaseEnd(terms.now, terms.leaseMs)}${more(terms.set)}`);
  }

  /** Ends the claim with the item's done state (`set`, which takes it out of `open`); false when the claim is no longer held. */
  async complete(em: EntityManager, key: unknown, terms: HeldBy & { set: RawBuilder<unknown> }): Promise<boolean> {
    return this.update(em, key, terms, sql`${this.lease} = null${more(terms.set)}`);
  }

  /**
   * Hands the item back (with `set`, e.g. its waiting state): due again at once, or at `retryAt`
   * (after a failure: see {@link backoffMs}). False when the claim is no longer held.
   */
  async release(em: EntityManager, key: unknown, terms: HeldBy & { retryAt?: Date; set?: RawBuilder<unknown> }): Promise<boolean> {
    return this.update(em, key, terms, sql`${this.lease} = ${terms.retryAt ?? null}${more(terms.set)}`);
  }

  private async update(em: EntityManager, key: unknown, terms: HeldBy, assignments: RawBuilder<unknown>): Promise<boolean> {
    const changed = await executeStatement(em, sql`update ${this.table} set ${assignments} where ${this.key} = ${key} and (${terms.holds})`);
    return changed > 0;
  }

  private due(now: Date): RawBuilder<unknown> {
    return sql`(${this.lease} is null or ${this.lease} <= ${now})`;
  }

  private assignments(terms: ClaimTerms<unknown>): RawBuilder<unknown> {
    return sql`${this.lease} = ${leaseEnd(terms.now, terms.leaseMs)}${more(terms.set)}`;
  }
}

/**
 * The wait before try `attempt` (1 for the first retry) of an item that failed: doubling from
 * `baseMs` up to `maxMs`, with up to a fifth less at random so items that failed together spread out.
 */
export function backoffMs(attempt: number, options: { baseMs: number; maxMs: number }): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const full = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  return Math.round(full * (1 - Math.random() * 0.2));
}

function leaseEnd(now: Date, leaseMs: number): Date {
  if (!(leaseMs > 0)) throw new Error("a lease lasts a positive number of milliseconds");
  return new Date(now.getTime() + leaseMs);
}

function more(set: RawBuilder<unknown> | undefined): RawBuilder<unknown> {
  return set ? sql`, ${set}` : sql``;
}
