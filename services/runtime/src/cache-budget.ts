/**
 * One memory budget for every cache of a process (the gateway's GATEWAY_CACHE_BYTES, the reader's
 * PAGE_CACHE_BYTES). Caches are views
 * of a single least-recently-used order: when an insert takes the total over the budget, the
 * entries used least recently are dropped, whichever cache holds them. A cache per route prefix,
 * each with its own bound, would multiply the bound by the number of prefixes (two content prefixes
 * at 64 MiB each did not fit the gateway's 192 MiB container limit).
 */
interface Entry<V> {
  readonly cache: BudgetedCache<V>;
  readonly key: string;
  readonly value: V;
  readonly bytes: number;
}

export class CacheBudget {
  // Insertion order is recency order: a hit moves its entry to the end, eviction takes the first.
  private readonly order = new Set<Entry<unknown>>();
  private readonly names = new Set<string>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held by every cache of this budget together. */
  get usedBytes(): number {
    return this.used;
  }

  /** A new cache drawing on this budget; `name` (unique) says what it holds, for errors and tests. */
  cache<V>(name: string): BudgetedCache<V> {
    if (this.names.has(name)) throw new Error(`a cache named "${name}" already draws on this budget`);
    this.names.add(name);
    return new BudgetedCache<V>(name, this);
  }

  /** @internal */
  touch(entry: Entry<unknown>): void {
    this.order.delete(entry);
    this.order.add(entry);
  }

  /** @internal Charges a new entry, then drops the least recently used ones until the budget holds. */
  charge(entry: Entry<unknown>): void {
    this.order.add(entry);
    this.used += entry.bytes;
    for (const oldest of this.order) {
      if (this.used <= this.maxBytes) break;
      oldest.cache.delete(oldest.key);
    }
  }

  /** @internal */
  release(entry: Entry<unknown>): void {
    if (this.order.delete(entry)) this.used -= entry.bytes;
  }
}

/** A key-value cache whose entries count against a `CacheBudget`; its own Map is in recency order too. */
export class BudgetedCache<V> {
  private readonly entriesByKey = new Map<string, Entry<V>>();

  /** @internal Created through `CacheBudget.cache`. */
  constructor(
    readonly name: string,
    private readonly budget: CacheBudget,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entriesByKey.get(key);
    if (!entry) return undefined;
    this.entriesByKey.delete(key);
    this.entriesByKey.set(key, entry);
    this.budget.touch(entry);
    return entry.value;
  }

  /** Keeps `value`, counted as `bytes`; a value larger than the whole budget is not kept. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.budget.maxBytes) return;
    const entry: Entry<V> = { cache: this, key, value, bytes };
    this.entriesByKey.set(key, entry);
    this.budget.charge(entry);
  }

  delete(key: string): void {
    const entry = this.entriesByKey.get(key);
    if (!entry) return;
    this.entriesByKey.delete(key);
    this.budget.release(entry);
  }

  /** Every key and value, least recently used first, without touching their recency (for rare sweeps, e.g. on an event). */
  *entries(): IterableIterator<[string, V]> {
    for (const [key, entry] of [...this.entriesByKey]) yield [key, entry.value];
  }

  /** The key used least recently in this cache (for caches with a bound of their own). */
  oldestKey(): string | undefined {
    return this.entriesByKey.keys().next().value;
  }

  get size(): number {
    return this.entriesByKey.size;
  }

  /** Bytes this cache holds of the budget. */
  get bytes(): number {
    let total = 0;
    for (const entry of this.entriesByKey.values()) total += entry.bytes;
    return total;
  }
}
