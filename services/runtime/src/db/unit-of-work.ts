import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { AbandonedByCaller } from "../grpc/keyed-calls.js";
import type { IdempotentCalls } from "./idempotent-calls.js";

/** The clock of each service's database, by the configuration every EntityManager of its ORM shares. */
const clocks = new WeakMap<object, () => Date>();
/** The time of each open transaction, by its EntityManager: when its events occurred. */
const times = new WeakMap<EntityManager, Date>();

/** Makes `clock` the time of `orm`'s transactions (startService does, with the service's clock). */
export function useTransactionClock(orm: Pick<MikroORM, "config">, clock: () => Date): void {
  clocks.set(orm.config, clock);
}

/**
 * The time of the transaction `em` runs in, one per transaction: a unit of work takes it from the
 * service's clock when its transaction begins (an enclosing one's, when nested); a transaction
 * opened otherwise (a consumer's, a job's) takes it at its first use. `recordEvent` dates every
 * event with it, so the events of one transaction occurred at one time, on the clock tests set.
 * Outside a transaction it is the clock's time now.
 */
export function transactionTime(em: EntityManager): Date {
  const known = times.get(em);
  if (known) return known;
  const at = (clocks.get(em.config) ?? (() => new Date()))();
  if (em.isInTransaction()) times.set(em, at);
  return at;
}

/** How one transaction of a unit of work treats the keyed call it runs for (see grpc/keyed-calls.ts). */
export interface UnitOfWorkOptions {
  /**
   * false: this transaction does not claim the call's idempotency key. Only for a step a repeat of
   * the call may run again because something else settles it (e.g. collaboration's merge intent,
   * which its resumer finishes or drops): the call's later transaction claims the key, so a repeat
   * after a stop between the two runs the call again instead of being told it was applied. Such a
   * step does not roll back when the caller gave up either: the later one does.
   */
  claimsKeyedCall?: boolean;
}

/**
 * A use case's transaction. `run` commits `work` as one transaction of `em` (the change and the
 * events it recorded with `recordEvent`, together) and then wakes the outbox relay, so the events
 * are published at once instead of at the relay's next poll. Its events occur at the transaction's
 * one time (see transactionTime). Use cases get it from their deps and never wake the relay
 * themselves.
 */
export interface UnitOfWork {
  run<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, options?: UnitOfWorkOptions): Promise<T>;
}

/** What a unit of work wakes after a commit (the service's OutboxRelay). */
export interface OutboxWakeUp {
  notify(): void;
}

/**
 * The unit of work of a service whose outbox `relay` publishes. Inside a transaction already (a
 * consumer's handler, an enclosing unit of work) nothing commits until the outer transaction does,
 * so the relay is left to whoever owns that one (the consumer wakes it after its commit). Waking
 * after a transaction that recorded nothing costs the relay one short query.
 *
 * With `keyedCalls`, a transaction run for a keyed call (a gRPC write sent with an idempotency key)
 * claims the key first thing inside it, so the claim commits exactly when the write does (and rolls
 * back with it when the caller gave up before the commit); once one
 * transaction of the call committed its claim, the call's later ones claim nothing. Transactions
 * of calls without a key run no extra statement.
 */
export function createUnitOfWork(relay: OutboxWakeUp, keyedCalls?: IdempotentCalls): UnitOfWork {
  return {
    async run<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
      if (em.isInTransaction()) {
        // Nested: part of the enclosing transaction, at its time.
        const at = transactionTime(em);
        return em.transactional((tx) => {
          times.set(tx, at);
          return work(tx);
        });
      }
      const call = options.claimsKeyedCall === false ? undefined : keyedCalls?.current();
      // The call's first transaction to commit applies its write: only that one claims and checks.
      const first = call && !call.claimed ? call : undefined;
      const result = await em.transactional(async (tx) => {
        transactionTime(tx);
        if (first?.key !== undefined) await keyedCalls!.claim(tx, first, first.key);
        const done = await work(tx);
        // A paused process may reach its commit after its caller gave up and was answered an
        // error: the write is then not applied, so that answer stays true and a repeat runs it.
        if (first?.abandoned()) throw new AbandonedByCaller();
        return done;
      });
      if (first) first.claimed = true;
      relay.notify();
      return result;
    },
  };
}
