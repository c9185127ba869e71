import { UniqueConstraintViolationException } from "@mikro-orm/postgresql";

/**
 * A create guarded by a unique row: two identical requests at once both find nothing and both
 * insert; the database lets one win. The loser answers what the winner created (the idempotent
 * outcome), instead of an internal error.
 */
export async function createOrFindWinner<T>(create: () => Promise<T>, winner: () => Promise<T | null>): Promise<{ value: T; created: boolean }> {
  try {
    return { value: await create(), created: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const existing = await winner();
    if (!existing) throw error;
    return { value: existing, created: false };
  }
}

/**
 * An upsert whose first statement locks the row it updates, when there is one: two identical
 * requests at once both find none and both insert; the loser runs again, now finding (and
 * waiting for) the winner's row, as if it had come second.
 */
export async function againIfLostInsertRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return work();
  }
}
