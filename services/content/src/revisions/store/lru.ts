/**
 * A bounded map that forgets the least recently used entries first. The revision store caches
 * only immutable things (content-addressed rows, committed revisions), so entries never go stale;
 * the bound is on total weight (entry count by default, bytes where entries vary in size).
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-insert: Map iteration order is insertion order, so the front is the least recent.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  set(key: K, value: V): void {
    const weight = this.weigh(value);
    if (weight > this.capacity) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.total -= previous.weight;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capacity) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.weight;
  }

  get size(): number {
    return this.entries.size;
  }
}
