import type { Logger } from "../logger.js";

/** What one request was told: allowed or not, and the numbers GitBook's X-RateLimit-* headers carry. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** When the window ends and the budget is whole again (ms since the epoch). */
  resetAtMs: number;
  /** How long until then (what Retry-After says, rounded up to seconds). */
  resetInMs: number;
}

/**
 * Counts shared by every replica of a process, per fixed window: each flush adds what this replica
 * counted since the last one and learns the totals of all replicas.
 */
export interface SharedWindowCounts {
  /** Adds each key's delta to its count in the window starting at `windowStartMs`; answers each key's total after. */
  add(windowStartMs: number, deltas: ReadonlyMap<string, number>): Promise<Map<string, number>>;
}

export interface RateLimiterOptions {
  /** The length of a window; windows are aligned on the epoch, so replicas agree on them. */
  windowMs: number;
  /** Where replicas add up their counts; absent: this process counts alone. */
  shared?: SharedWindowCounts;
  /** How often counts are exchanged with `shared`: replicas converge on one budget within it. */
  flushEveryMs?: number;
  /** Keys counted in one window at most; beyond, new keys are let through uncounted (memory stays bounded). */
  maxKeys?: number;
  logger: Logger;
  now?: () => number;
}

interface KeyCount {
  /** The total of every replica, as last learnt (this replica's flushed requests included). */
  shared: number;
  /** Counted here since the last flush. */
  pending: number;
}

/** Keys of one window at most, by default: about 100 bytes each. */
const DEFAULT_MAX_KEYS = 200_000;
const DEFAULT_FLUSH_EVERY_MS = 200;
const WARNING_INTERVAL_MS = 60_000;
/** Keys sent in one flush at most (two KV calls each): the rest wait for the next, counted here meanwhile. */
const MAX_KEYS_PER_FLUSH = 1_000;

/**
 * Fixed-window rate limits whose decision never waits: each request is counted in this process
 * and decided at once against the window's total as last learnt plus what was counted here since;
 * every `flushEveryMs` the counts are added to the shared ones (NATS KV) and the totals read back.
 * So N replicas let through at most the limit plus what the others counted within one flush.
 * While the shared counts cannot be reached, each replica goes on counting alone (fails open: a
 * limiter never makes a request fail) and says so in the log, once a minute.
 */
export class RateLimiter {
  private readonly now: () => number;
  private readonly maxKeys: number;
  private windowStartMs = -1;
  private counts = new Map<string, KeyCount>();
  private readonly timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private warnedAt = -Infinity;
  private uncounted = 0;

  constructor(private readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    if (options.shared) {
      this.timer = setInterval(() => void this.flush(), options.flushEveryMs ?? DEFAULT_FLUSH_EVERY_MS);
      this.timer.unref();
    }
  }

  get windowMs(): number {
    return this.options.windowMs;
  }

  /** Counts one request of `key` against `limit` in the current window, unless the budget is spent. */
  take(key: string, limit: number): RateLimitDecision {
    const now = this.now();
    const windowStartMs = now - (now % this.options.windowMs);
    if (windowStartMs !== this.windowStartMs) {
      // A new window: every budget is whole again (what the old one had not flushed no longer matters).
      this.windowStartMs = windowStartMs;
      this.counts = new Map();
    }
    const resetAtMs = windowStartMs + this.options.windowMs;
    let count = this.counts.get(key);
    if (!count) {
      if (this.counts.size >= this.maxKeys) {
        this.warn("rate limiter: too many callers in one window, new ones are let through uncounted", {});
        return { allowed: true, limit, remaining: limit, resetAtMs, resetInMs: resetAtMs - now };
      }
      count = { shared: 0, pending: 0 };
      this.counts.set(key, count);
    }
    const used = count.shared + count.pending;
    if (used >= limit) return { allowed: false, limit, remaining: 0, resetAtMs, resetInMs: resetAtMs - now };
    count.pending += 1;
    return { allowed: true, limit, remaining: limit - used - 1, resetAtMs, resetInMs: resetAtMs - now };
  }

  /** Sends what was counted since the last flush and learns the totals (one flush at a time). */
  flush(): Promise<void> {
    const shared = this.options.shared;
    if (!shared || this.flushing) return this.flushing ?? Promise.resolve();
    const windowStartMs = this.windowStartMs;
    const counts = this.counts;
    const deltas = new Map<string, number>();
    for (const [key, count] of counts) {
      if (count.pending === 0) continue;
      deltas.set(key, count.pending);
      count.pending = 0;
      if (deltas.size >= MAX_KEYS_PER_FLUSH) break;
    }
    // Those sent go to the back of the line, so that under more callers than one flush takes, each gets its turn.
    for (const key of deltas.keys()) {
      const count = counts.get(key)!;
      counts.delete(key);
      counts.set(key, count);
    }
    if (deltas.size === 0) return Promise.resolve();
    this.flushing = shared
      .add(windowStartMs, deltas)
      .then(
        (totals) => {
          for (const [key, total] of totals) {
            const count = counts.get(key);
            // Never below what this replica alone knows of (a total read before a concurrent add).
            if (count) count.shared = Math.max(count.shared + (deltas.get(key) ?? 0), total);
          }
        },
        (error: unknown) => {
          // Counted here all the same: the budget holds per replica until the shared counts answer again.
          for (const [key, delta] of deltas) {
            const count = counts.get(key);
            if (count) count.shared += delta;
          }
          this.warn("rate limits counted per replica: the shared counts cannot be reached", { err: error });
        },
      )
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private warn(message: string, fields: Record<string, unknown>): void {
    this.uncounted += 1;
    const now = this.now();
    if (now - this.warnedAt < WARNING_INTERVAL_MS) return;
    this.warnedAt = now;
    this.options.logger.warn(message, { ...fields, times: this.uncounted });
    this.uncounted = 0;
  }

  /** Stops exchanging counts (the last flush is awaited). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushing;
  }
}
