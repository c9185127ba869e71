import type { EntityManager } from "@mikro-orm/postgresql";
import type { IdempotentCalls } from "./idempotent-calls.js";

/** How one transaction of a unit of work treats the keyed call it runs for (see grpc/keyed-calls.ts). */
export interface UnitOfWorkOptions {
  /**
   * false: this transaction does not claim the call's idempotency key. Only for a step a repeat of
   * the call may run again because something else settles it (e.g. collaboration's merge intent,
   * which its resumer finishes or drops): the call's later transaction claims the key, so a repeat
   * after a stop between the two runs the call again instead of being told it was applied.
   */
  claimsKeyedCall?: boolean;
}

/**
 * A use case's transaction. `run` commits `work` as one transaction of `em` (the change and the
 * events it recorded with `recordEvent`, together) and then wakes the outbox relay, so the events
 * are published at once instead of at the relay's next poll. Use cases get it from their deps and
 * never wake the relay themselves.
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
 * claims the key first thing inside it, so the claim commits exactly when the write does; once one
 * transaction of the call committed its claim, the call's later ones claim nothing. Transactions
 * of calls without a key run no extra statement.
 */
export function createUnitOfWork(relay: OutboxWakeUp, keyedCalls?: IdempotentCalls): UnitOfWork {
  return {
    async run<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
      if (em.isInTransaction()) return em.transactional(work);
      const call = options.claimsKeyedCall === false ? undefined : keyedCalls?.current();
      const claim = keyedCalls && call && !call.claimed ? (tx: EntityManager) => keyedCalls.claim(tx, call) : undefined;
      const result = await em.transactional(async (tx) => {
        if (claim) await claim(tx);
        return work(tx);
      });
      if (claim && call) call.claimed = true;
      relay.notify();
      return result;
    },
  };
}
