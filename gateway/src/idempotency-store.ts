import type { BudgetedCache, CacheBudget, Logger } from "@imprint/runtime/core";
import type { NatsLink } from "@imprint/runtime/watch";
import { Kvm, type KV } from "@nats-io/kv";

/**
 * Where the gateway keeps what it answered to requests sent with an `Idempotency-Key`: one record
 * per (token, method, path, key), first "running", then "done" with the answer to replay.
 */
export interface IdempotencyRecord {
  state: "running" | "done";
  /** SHA-256 (hex) of the request's raw body: the same key with another body is refused. */
  bodyHash: string;
  /** When the request began (ms since the epoch). */
  startedAt: number;
  /** "running": when the running gateway last renewed it; one not renewed within the abandon limit was abandoned. */
  renewedAt?: number;
  /** "done": the answer's status. */
  status?: number;
  /** "done": the answer's headers that matter to a client (Location, Content-Type...), lower-case names. */
  headers?: Record<string, string>;
  /** "done": the answer's body, as sent (JSON text, or base64 of bytes); absent for none. */
  body?: { json: string } | { base64: string };
  /** "done": the answer was too large (or streamed) to keep, so it cannot be replayed. */
  unkept?: boolean;
}

export interface StoredRecord {
  record: IdempotencyRecord;
  /** Compare-and-set token for `replace`. */
  revision: number;
}

export interface IdempotencyStore {
  /** Creates the record unless one exists; answers the existing one otherwise. */
  create(id: string, record: IdempotencyRecord): Promise<{ created: true } | { created: false; existing: StoredRecord }>;
  /** Replaces the record if it is still at `revision` (taking over an abandoned request); false otherwise. */
  replace(id: string, record: IdempotencyRecord, revision: number): Promise<boolean>;
  put(id: string, record: IdempotencyRecord): Promise<void>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a record is kept: a client may retry with the same key for a day. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** The JetStream key-value bucket every gateway replica shares. */
export const IDEMPOTENCY_BUCKET = "imprint_idempotency";
/** Answers kept for the bucket while NATS is unreachable, at most. */
const MAX_UNSYNCED = 10_000;
/** Bound on each KV operation, so that a NATS outage costs a request little before the fallback answers. */
const KV_TIMEOUT_MS = 2_000;

const encoder = new TextEncoder();
const recordBytes = (id: string, record: IdempotencyRecord) => id.length + JSON.stringify(record).length;

/**
 * Records in this process only, for when NATS is unreachable (or not configured): bounded by the
 * gateway's cache budget (GATEWAY_CACHE_BYTES), the least recently used dropped first, each kept
 * at most IDEMPOTENCY_TTL_MS. A retry reaching another replica meanwhile runs again.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly cache: BudgetedCache<StoredRecord & { expiresAt: number }>;
  private revision = 0;

  constructor(
    budget: CacheBudget,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = budget.cache("idempotency records");
  }

  private current(id: string): StoredRecord | undefined {
    const entry = this.cache.get(id);
    if (entry && entry.expiresAt <= this.now()) {
      this.cache.delete(id);
      return undefined;
    }
    return entry;
  }

  private write(id: string, record: IdempotencyRecord): void {
    this.cache.set(id, { record, revision: ++this.revision, expiresAt: this.now() + IDEMPOTENCY_TTL_MS }, recordBytes(id, record));
  }

  create(id: string, record: IdempotencyRecord): Promise<{ created: true } | { created: false; existing: StoredRecord }> {
    const existing = this.current(id);
    if (existing) return Promise.resolve({ created: false, existing });
    this.write(id, record);
    return Promise.resolve({ created: true });
  }

  replace(id: string, record: IdempotencyRecord, revision: number): Promise<boolean> {
    if (this.current(id)?.revision !== revision) return Promise.resolve(false);
    this.write(id, record);
    return Promise.resolve(true);
  }

  put(id: string, record: IdempotencyRecord): Promise<void> {
    this.write(id, record);
    return Promise.resolve();
  }

  delete(id: string): Promise<void> {
    this.cache.delete(id);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A failed compare-and-set on the bucket (someone else wrote the record first). */
function isWrongRevision(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

/**
 * Records in a JetStream key-value bucket (IDEMPOTENCY_BUCKET, created on first use with a 24 h
 * age limit), shared by every gateway replica. While NATS is unreachable, each operation goes to
 * the in-process fallback instead (an outage of NATS must not fail requests); the connection is
 * (re)tried in the background.
 */
export class NatsIdempotencyStore implements IdempotencyStore {
  private bucket: Promise<KV> | undefined;
  private closed = false;
  /**
   * Answers (null: deletions) kept in the process because the bucket could not take them: written
   * to the bucket once NATS answers again, so that the bucket never keeps a request "running" whose
   * answer this replica already gave (a retry would otherwise run it again after the abandon limit).
   */
  private readonly unsynced = new Map<string, IdempotencyRecord | null>();
  private flushing: Promise<void> | undefined;
  private warnedAt = 0;

  /** `nats`: the gateway's connection, made in the background (this store does not close it). */
  constructor(
    private readonly nats: NatsLink,
    private readonly fallback: IdempotencyStore,
    private readonly logger: Logger,
  ) {
    void nats.connected.then(
      async (nc) => {
        this.logger.info("idempotency records kept in NATS", { bucket: IDEMPOTENCY_BUCKET });
        // What was answered while NATS was unreachable reaches the bucket once it is back.
        this.flush();
        for await (const status of nc.status()) {
          if (this.closed) return;
          if (status.type === "reconnect") this.flush();
        }
      },
      () => undefined,
    );
  }

  private warn(message: string, error: unknown): void {
    // Once a minute at most: an outage would otherwise log every request.
    if (Date.now() - this.warnedAt < 60_000) return;
    this.warnedAt = Date.now();
    this.logger.warn(message, { bucket: IDEMPOTENCY_BUCKET, err: error });
  }

  /** The bucket while NATS is connected (created on first use), else undefined. */
  private async kv(): Promise<KV | undefined> {
    // While the connection is down, requests go to the fallback at once instead of waiting for a timeout.
    const nats = this.nats.current;
    if (!nats || !this.nats.isUp()) return undefined;
    this.bucket ??= new Kvm(nats).create(IDEMPOTENCY_BUCKET, { ttl: IDEMPOTENCY_TTL_MS, history: 1, timeout: KV_TIMEOUT_MS }).catch((error: unknown) => {
      this.bucket = undefined;
      throw error;
    });
    return this.bucket;
  }

  /** Writes what the bucket missed while NATS was unreachable (once at a time). */
  private flush(): void {
    if (this.unsynced.size === 0 || this.flushing) return;
    this.flushing = (async () => {
      const kv = await this.kv().catch(() => undefined);
      if (!kv) return;
      for (const [id, record] of [...this.unsynced]) {
        try {
          if (record) await kv.put(id, encoder.encode(JSON.stringify(record)));
          else await kv.delete(id);
          if (this.unsynced.get(id) === record) this.unsynced.delete(id);
        } catch {
          return;
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
  }

  private keepUnsynced(id: string, record: IdempotencyRecord | null): void {
    this.unsynced.delete(id);
    this.unsynced.set(id, record);
    // Bounded: the oldest are given up (their records in the bucket then age out).
    if (this.unsynced.size > MAX_UNSYNCED) this.unsynced.delete(this.unsynced.keys().next().value!);
  }

  /** Runs `operation` on the bucket, or on the fallback when NATS cannot answer. */
  private async use<T>(onBucket: (kv: KV) => Promise<T>, onFallback: () => Promise<T>): Promise<T> {
    let kv: KV | undefined;
    try {
      kv = await this.kv();
    } catch (error) {
      this.warn("idempotency bucket unavailable: records are kept in this process meanwhile", error);
    }
    if (!kv) return onFallback();
    this.flush();
    try {
      return await onBucket(kv);
    } catch (error) {
      if (isWrongRevision(error)) throw error;
      this.warn("idempotency bucket unavailable: records are kept in this process meanwhile", error);
      return onFallback();
    }
  }

  create(id: string, record: IdempotencyRecord): Promise<{ created: true } | { created: false; existing: StoredRecord }> {
    // An answer this replica gave while the bucket could not take it wins over what the bucket says.
    const answered = this.unsynced.get(id);
    if (answered) return Promise.resolve({ created: false, existing: { record: answered, revision: 0 } });
    return this.use(
      async (kv) => {
        try {
          await kv.create(id, encoder.encode(JSON.stringify(record)));
          return { created: true } as const;
        } catch (error) {
          if (!isWrongRevision(error)) throw error;
        }
        const entry = await kv.get(id);
        if (!entry || entry.operation !== "PUT") {
          // Deleted between the two calls: try once more.
          await kv.create(id, encoder.encode(JSON.stringify(record)));
          return { created: true } as const;
        }
        return { created: false, existing: { record: entry.json<IdempotencyRecord>(), revision: entry.revision } } as const;
      },
      () => this.fallback.create(id, record),
    );
  }

  replace(id: string, record: IdempotencyRecord, revision: number): Promise<boolean> {
    return this.use(
      async (kv) => {
        try {
          await kv.update(id, encoder.encode(JSON.stringify(record)), revision);
          return true;
        } catch (error) {
          if (isWrongRevision(error)) return false;
          throw error;
        }
      },
      () => this.fallback.replace(id, record, revision),
    );
  }

  put(id: string, record: IdempotencyRecord): Promise<void> {
    return this.use(
      async (kv) => {
        await kv.put(id, encoder.encode(JSON.stringify(record)));
      },
      async () => {
        this.keepUnsynced(id, record);
        await this.fallback.put(id, record);
      },
    );
  }

  delete(id: string): Promise<void> {
    return this.use(
      (kv) => kv.delete(id),
      async () => {
        this.keepUnsynced(id, null);
        await this.fallback.delete(id);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
  }
}
