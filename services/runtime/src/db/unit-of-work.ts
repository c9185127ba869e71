import type { EntityManager } from "@mikro-orm/postgresql";

/**
 * A use case's transaction. `run` commits `work` as one transaction of `em` (the change and the
 * events it recorded with `recordEvent`, together) and then wakes the outbox relay, so the events
 * are published at once instead of at the relay's next poll. Use cases get it from their deps and
 * never wake the relay themselves.
 */
export interface UnitOfWork {
  run<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T>;
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
 */
export function createUnitOfWork(relay: OutboxWakeUp): UnitOfWork {
  return {
    async run<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
      if (em.isInTransaction()) return em.transactional(work);
      const result = await em.transactional(work);
      relay.notify();
      return result;
    },
  };
}
