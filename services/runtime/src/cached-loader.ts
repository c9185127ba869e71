import { CacheBudget, type BudgetedCache } from "./cache-budget.js";

/** A value a loader keeps, and when it was stored (on the loader's clock). */
export interface Stored<V> {
  value: V;
  storedAt: number;
}

/** Where a loader's entries count: a budget shared with other caches, its own bytes, or its own entry count. */
export type CachedLoaderBound<V> =
  | { budget: CacheBudget; bytes: (value: V, key: string) => number }
  | { maxBytes: number; bytes: (value: V, key: string) => number }
  | { maxEntries: number };

export type CachedLoaderOptions<V> = CachedLoaderBound<V> & {
  /** What it holds (for errors and tests); unique among the caches of its budget. */
  name: string;
  /**
   * How long a stored value is used before it is loaded again, read at each use (so it may follow
   * the process's state, e.g. whether events are heard). Absent: values never go stale (immutable
   * rows, versioned keys), and only eviction or an invalidation drops them.
   */
  ttlMs?: number | (() => number);
  /** Until when a stored value is used, from the value itself (a token's expiry); wins over `ttlMs`. */
  freshUntil?: (value: V, storedAt: number) => number;
  /**
   * A load failed: whether to answer the last stored value instead (stale if error), e.g. while an
   * upstream is unreachable. The stale value is answered, not stored again.
   */
  staleIfError?: (error: unknown, stale: Stored<V>) => boolean;
  /** The loader's clock, in ms (default performance.now); tests pass their own. */
  now?: () => number;
};

/** How one `load` treats its value. */
export interface LoadOptions<V> {
  /** Whether the loaded value is stored (default: always); a value not kept is still answered. */
  keep?: (value: V) => boolean;
}

/**
 * A get-or-load cache: values by key, each loaded once and reused while fresh (`ttlMs`,
 * `freshUntil`), within a bound enforced by the one eviction engine (CacheBudget: least recently
 * used first). Concurrent loads of one key share one promise (single flight), so a burst of
 * requests for a cold key costs one upstream read. An invalidation (by key, by key prefix, or
 * all) drops the stored value and forgets the load under way: its answer still goes to those who
 * asked, but is not stored, so no answer older than the invalidation comes back after it. A
 * failed load stores nothing.
 */
export class CachedLoader<V> {
  private readonly entries: BudgetedCache<Stored<V>>;
  private readonly charge: (value: V, key: string) => number;
  /** Loads under way, by key; an invalidation removes the key, so the load's value is not stored. */
  private readonly flights = new Map<string, { promise: Promise<V> }>();
  private readonly now: () => number;
  /** Whether freshness is checked at all (values that never go stale read no clock). */
  private readonly expires: boolean;

  constructor(private readonly options: CachedLoaderOptions<V>) {
    if ("budget" in options) {
      this.entries = options.budget.cache(options.name);
      this.charge = options.bytes;
    } else if ("maxBytes" in options) {
      this.entries = new CacheBudget(options.maxBytes).cache(options.name);
      this.charge = options.bytes;
    } else {
      this.entries = new CacheBudget(options.maxEntries, "entries").cache(options.name);
      this.charge = () => 1;
    }
    this.now = options.now ?? (() => performance.now());
    this.expires = options.ttlMs !== undefined || options.freshUntil !== undefined;
  }

  /** The fresh value of `key` (now the most recently used); undefined when none is stored or it went stale. */
  get(key: string): V | undefined {
    const stored = this.entries.get(key);
    if (!stored) return undefined;
    return this.isFresh(stored) ? stored.value : undefined;
  }

  /** Whether a fresh value of `key` is stored. */
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The last value stored for `key`, fresh or not (e.g. to revalidate it upstream). */
  stored(key: string): Stored<V> | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` for `key` as of now. */
  set(key: string, value: V): void {
    this.entries.set(key, { value, storedAt: this.expires ? this.now() : 0 }, this.charge(value, key));
  }

  /**
   * The fresh value of `key`, else the one `loader` loads (given the last value stored, fresh or
   * not), shared with every concurrent load of `key`.
   */
  load(key: string, loader: (stale: Stored<V> | undefined) => Promise<V>, options: LoadOptions<V> = {}): Promise<V> {
    const stored = this.entries.get(key);
    if (stored && this.isFresh(stored)) return Promise.resolve(stored.value);
    const running = this.flights.get(key);
    if (running) return running.promise;
    // Registered before the loader runs, which may fail at once.
    const flight = { promise: undefined as unknown as Promise<V> };
    this.flights.set(key, flight);
    flight.promise = this.run(key, flight, stored, loader, options);
    return flight.promise;
  }

  /** Drops `key`'s value; a load of it under way is not stored. */
  invalidate(key: string): void {
    this.entries.delete(key);
    this.flights.delete(key);
  }

  /** Drops the values of every key starting with `prefix`; loads of them under way are not stored. */
  invalidatePrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
    for (const key of [...this.flights.keys()]) if (key.startsWith(prefix)) this.flights.delete(key);
  }

  /** Drops every value; loads under way are not stored. */
  clear(): void {
    for (const key of this.entries.keys()) this.entries.delete(key);
    this.flights.clear();
  }

  /** Values stored (fresh or not). */
  get size(): number {
    return this.entries.size;
  }

  /** What the stored values are charged against the bound. */
  get bytes(): number {
    return this.entries.bytes;
  }

  private async run(
    key: string,
    flight: { promise: Promise<V> },
    stale: Stored<V> | undefined,
    loader: (stale: Stored<V> | undefined) => Promise<V>,
    options: LoadOptions<V>,
  ): Promise<V> {
    const current = () => this.flights.get(key) === flight;
    try {
      const value = await loader(stale);
      if (current()) {
        this.flights.delete(key);
        if (options.keep?.(value) ?? true) this.set(key, value);
      }
      return value;
    } catch (error) {
      const wasCurrent = current();
      if (wasCurrent) this.flights.delete(key);
      // Read again: an invalidation may have dropped the value while the load was under way.
      const last = wasCurrent ? this.entries.get(key) : undefined;
      if (last && this.options.staleIfError?.(error, last)) return last.value;
      throw error;
    }
  }

  private isFresh(stored: Stored<V>): boolean {
    if (!this.expires) return true;
    const { ttlMs, freshUntil } = this.options;
    if (freshUntil) return this.now() < freshUntil(stored.value, stored.storedAt);
    const ttl = typeof ttlMs === "function" ? ttlMs() : (ttlMs ?? Number.POSITIVE_INFINITY);
    return this.now() - stored.storedAt < ttl;
  }
}
