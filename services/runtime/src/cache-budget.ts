/**
 * The one eviction engine of the process's caches: a budget, and caches drawing on it. A budget
 * counts what its caches charge: bytes (the gateway's GATEWAY_CACHE_BYTES, the reader's
 * PAGE_CACHE_BYTES, content's revision caches), or entries for a cache bounded by count. Caches are
 * views of a single least-recently-used order: when an insert takes the total over the budget, the
 * entries used least recently are dropped, whichever cache holds them. A cache per route prefix,
 * each with its own bound, would multiply the bound by the number of prefixes (two content prefixes
 * at 64 MiB each did not fit the gateway's 192 MiB container limit). A cache with a bound of its
 * own is the only cache of its budget.
 *
 * Recency is kept in linked lists (one of the budget, one per cache), so a hit moves two links and
 * touches no hash table: reordering a Map on every hit (delete and insert again) made V8 rehash it
 * over and over (10% of the content process's CPU under the page-by-path benchmark).
 *
 * Every cache is measured by its name (imprint_cache_*): hits and misses counted at each `get`, what
 * it holds read at scrape time (bytes for a budget in bytes, entries for all).
 */
import type { CounterChild } from "./metrics/fast-metrics.js";
import { addScrapeSource } from "./metrics/registry.js";
import { cacheEntries, cacheHits, cacheMisses, cacheSize } from "./metrics/series.js";

/** The caches alive in this process, measured at each scrape (a cache dropped with its owner leaves). */
const liveCaches = new Set<WeakRef<BudgetedCache<unknown>>>();
addScrapeSource({
  collect: () => {
    const bytes = new Map<string, number>();
    const entries = new Map<string, number>();
    for (const ref of liveCaches) {
      const cache = ref.deref();
      if (!cache) {
        liveCaches.delete(ref);
        continue;
      }
      entries.set(cache.name, (entries.get(cache.name) ?? 0) + cache.size);
      if (cache.countsBytes) bytes.set(cache.name, (bytes.get(cache.name) ?? 0) + cache.bytes);
    }
    for (const [name, count] of entries) cacheEntries.set({ cache: name }, count);
    for (const [name, held] of bytes) cacheSize.set({ cache: name }, held);
  },
});
class Entry<V> {
  /** Its place in the budget's order and in its cache's. */
  readonly inBudget: Link<Entry<unknown>>;
  readonly inCache: Link<Entry<V>>;

  constructor(
    readonly cache: BudgetedCache<V>,
    readonly key: string,
    readonly value: V,
    readonly bytes: number,
  ) {
    this.inBudget = { item: this, older: null, newer: null };
    this.inCache = { item: this, older: null, newer: null };
  }
}

interface Link<T> {
  readonly item: T;
  older: Link<T> | null;
  newer: Link<T> | null;
}

/** Items from the least to the most recently used; every operation is O(1). */
class RecencyList<T> {
  private oldestLink: Link<T> | null = null;
  private newestLink: Link<T> | null = null;

  /** Adds `link` (not in the list) as the most recent. */
  push(link: Link<T>): void {
    link.older = this.newestLink;
    link.newer = null;
    if (this.newestLink) this.newestLink.newer = link;
    else this.oldestLink = link;
    this.newestLink = link;
  }

  remove(link: Link<T>): void {
    if (link.older) link.older.newer = link.newer;
    else this.oldestLink = link.newer;
    if (link.newer) link.newer.older = link.older;
    else this.newestLink = link.older;
    link.older = null;
    link.newer = null;
  }

  /** Makes `link` (in the list) the most recent. */
  touch(link: Link<T>): void {
    if (link === this.newestLink) return;
    this.remove(link);
    this.push(link);
  }

  get oldest(): T | undefined {
    return this.oldestLink?.item;
  }

  /** The items, least recently used first, as they are now (changes while iterating do not show). */
  snapshot(): T[] {
    const items: T[] = [];
    for (let link = this.oldestLink; link; link = link.newer) items.push(link.item);
    return items;
  }
}

export class CacheBudget {
  private readonly order = new RecencyList<Entry<unknown>>();
  private readonly names = new Set<string>();
  private used = 0;

  /** `unit`: what its caches charge, bytes (default) or entries (a bound by count). */
  constructor(
    readonly maxBytes: number,
    readonly unit: "bytes" | "entries" = "bytes",
  ) {}

  /** What every cache of this budget holds together (bytes, or entries: what they charge). */
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
    this.order.touch(entry.inBudget);
  }

  /** @internal Charges a new entry, then drops the least recently used ones until the budget holds. */
  charge(entry: Entry<unknown>): void {
    this.order.push(entry.inBudget);
    this.used += entry.bytes;
    while (this.used > this.maxBytes) {
      const oldest = this.order.oldest;
      if (!oldest) break;
      oldest.cache.delete(oldest.key);
    }
  }

  /** @internal */
  release(entry: Entry<unknown>): void {
    this.order.remove(entry.inBudget);
    this.used -= entry.bytes;
  }
}

/** A key-value cache whose entries count against a `CacheBudget`, with a recency order of its own. */
export class BudgetedCache<V> {
  private readonly entriesByKey = new Map<string, Entry<V>>();
  private readonly order = new RecencyList<Entry<V>>();
  private held = 0;
  private readonly hits: CounterChild;
  private readonly misses: CounterChild;

  /** @internal Created through `CacheBudget.cache`. */
  constructor(
    readonly name: string,
    private readonly budget: CacheBudget,
  ) {
    this.hits = cacheHits.child(name);
    this.misses = cacheMisses.child(name);
    liveCaches.add(new WeakRef(this));
  }

  /** Whether what it holds is counted in bytes (its budget's unit). */
  get countsBytes(): boolean {
    return this.budget.unit === "bytes";
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entriesByKey.get(key);
    if (!entry) {
      this.misses.inc();
      return undefined;
    }
    this.hits.inc();
    this.order.touch(entry.inCache);
    this.budget.touch(entry);
    return entry.value;
  }

  has(key: string): boolean {
    return this.entriesByKey.has(key);
  }

  /** Keeps `value`, charged `bytes`; a value larger than the whole budget is not kept. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.budget.maxBytes) return;
    const entry = new Entry(this, key, value, bytes);
    this.entriesByKey.set(key, entry);
    this.order.push(entry.inCache);
    this.held += bytes;
    this.budget.charge(entry);
  }

  delete(key: string): void {
    const entry = this.entriesByKey.get(key);
    if (!entry) return;
    this.entriesByKey.delete(key);
    this.order.remove(entry.inCache);
    this.held -= entry.bytes;
    this.budget.release(entry);
  }

  /** Every key, in no particular order, as they are now (for invalidations by prefix). */
  keys(): string[] {
    return [...this.entriesByKey.keys()];
  }

  /** Every key and value, least recently used first, without touching their recency (for rare sweeps, e.g. on an event). */
  *entries(): IterableIterator<[string, V]> {
    for (const entry of this.order.snapshot()) yield [entry.key, entry.value];
  }

  /** The key used least recently in this cache (for caches with a bound of their own). */
  oldestKey(): string | undefined {
    return this.order.oldest?.key;
  }

  get size(): number {
    return this.entriesByKey.size;
  }

  /** What this cache holds of the budget. */
  get bytes(): number {
    return this.held;
  }
}
