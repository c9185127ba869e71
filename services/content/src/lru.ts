/**
 * A bounded map that forgets the least recently used entries first. The revision store caches
 * only immutable things (content-addressed rows, committed revisions), so entries never go stale;
 * the bound is on total weight (entry count by default, bytes where entries vary in size).
 *
 * Two generations instead of one recency-ordered Map: a hit in the young generation is a single
 * lookup, where delete-and-reinsert on every hit made V8 rehash the whole table again and again
 * (10% of the content process's CPU under the page-by-path benchmark). When the young generation
 * would pass half the capacity it becomes the old one and the previous old one is dropped; an old entry
 * that is read again moves to the young one. Never holds more than `capacity` weight, and always
 * keeps at least the most recent half of it.
 */
export class Lru<K, V> {
  private young = new Map<K, { value: V; weight: number }>();
  private old = new Map<K, { value: V; weight: number }>();
  private youngWeight = 0;
  private oldWeight = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const recent = this.young.get(key);
    if (recent) return recent.value;
    const aging = this.old.get(key);
    if (!aging) return undefined;
    this.old.delete(key);
    this.oldWeight -= aging.weight;
    this.admit(key, aging);
    return aging.value;
  }

  has(key: K): boolean {
    return this.young.has(key) || this.old.has(key);
  }

  set(key: K, value: V): void {
    const weight = this.weigh(value);
    if (weight > this.capacity) return;
    this.delete(key);
    this.admit(key, { value, weight });
  }

  delete(key: K): void {
    const recent = this.young.get(key);
    if (recent) {
      this.young.delete(key);
      this.youngWeight -= recent.weight;
    }
    const aging = this.old.get(key);
    if (aging) {
      this.old.delete(key);
      this.oldWeight -= aging.weight;
    }
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  private admit(key: K, entry: { value: V; weight: number }): void {
    // Each generation holds at most half the capacity, so both together never exceed it.
    if (this.youngWeight + entry.weight > this.capacity / 2) {
      this.old = this.young;
      this.oldWeight = this.youngWeight;
      this.young = new Map();
      this.youngWeight = 0;
    }
    this.young.set(key, entry);
    this.youngWeight += entry.weight;
    // An entry heavier than half the capacity leaves room for nothing older.
    if (this.youngWeight + this.oldWeight > this.capacity) {
      this.old = new Map();
      this.oldWeight = 0;
    }
  }
}
