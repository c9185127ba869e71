import type { BudgetedCache } from "@imprint/runtime/core";

/**
 * The last answer of a read per key, as JSON bytes, with what identifies it upstream (a revision,
 * a version). The gateway sends that identity with the next read; the service still checks access
 * and answers `not_modified` when it is unchanged, so a large answer is neither re-encoded,
 * re-decoded nor re-mapped. Readers arriving while one fetches wait for it. Its bytes count against
 * the gateway's one cache budget.
 */
export class AnswerCache<E extends { json: Buffer | readonly Buffer[] }> {
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(private readonly entries: BudgetedCache<E>) {}

  fetching(key: string): boolean {
    return this.inflight.has(key);
  }

  /** Resolves when no fetch of `key` is in flight (whatever its outcome). */
  async settled(key: string): Promise<void> {
    await this.inflight.get(key)?.catch(() => undefined);
  }

  /** Marks `work` as the fetch of `key` until it settles. */
  async track<T>(key: string, work: Promise<T>): Promise<T> {
    this.inflight.set(key, work);
    try {
      return await work;
    } finally {
      if (this.inflight.get(key) === work) this.inflight.delete(key);
    }
  }

  get(key: string): E | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: E): void {
    const bytes = Buffer.isBuffer(entry.json) ? entry.json.length : entry.json.reduce((sum, chunk) => sum + chunk.length, 0);
    this.entries.set(key, entry, bytes);
  }
}
