import { UniqueConstraintViolationException } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/**
 * Two concurrent requests creating the same user or membership: the unique index lets one win,
 * and the other gets a retryable conflict instead of an internal error.
 */
export async function conflictOnUniqueViolation<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw AppError.conflict(message);
    throw error;
  }
}
