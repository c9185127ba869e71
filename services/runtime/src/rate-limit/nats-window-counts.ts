import { createHash } from "node:crypto";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsLink } from "../events/nats.js";
import type { SharedWindowCounts } from "./rate-limiter.js";

/** The JetStream key-value bucket holding every replica's counts, one key per (window, caller). */
export const RATE_LIMIT_BUCKET = "imprint_rate_limits";
/** How long a window's counts are kept: the longest window (RATE_LIMIT_WINDOW_MS allows 5 minutes) and a margin. */
const BUCKET_TTL_MS = 10 * 60 * 1000;
/** Bound on each KV call, so that a slow NATS delays only the counts, never a request. */
const KV_TIMEOUT_MS = 2_000;
/** Compare-and-set attempts per key and flush before this flush gives up on it (another replica kept winning). */
const MAX_ATTEMPTS = 5;

const encoder = new TextEncoder();

function isWrongRevision(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

/**
 * Counts in NATS KV (RATE_LIMIT_BUCKET), added with a compare-and-set on each key's revision (no
 * distributed counters before nats-server 2.12): read, add, update at that revision, again when
 * another replica wrote in between. A key is `<bucket prefix>.<window start>.<hash of the caller>`.
 */
export class NatsWindowCounts implements SharedWindowCounts {
  private bucket: Promise<KV> | undefined;

  /** `nats`: the process's connection (this does not close it); `prefix` keeps processes (gateway, reader) apart. */
  constructor(
    private readonly nats: NatsLink,
    private readonly prefix: string,
  ) {}

  private kv(): Promise<KV> {
    const nats = this.nats.current;
    // While the connection is down, the flush fails at once rather than after a timeout.
    if (!nats || !this.nats.isUp()) return Promise.reject(new Error("NATS is not connected"));
    this.bucket ??= new Kvm(nats).create(RATE_LIMIT_BUCKET, { ttl: BUCKET_TTL_MS, history: 1, timeout: KV_TIMEOUT_MS }).catch((error: unknown) => {
      this.bucket = undefined;
      throw error;
    });
    return this.bucket;
  }

  async add(windowStartMs: number, deltas: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const kv = await this.kv();
    const totals = new Map<string, number>();
    await Promise.all(
      [...deltas].map(async ([caller, delta]) => {
        const key = `${this.prefix}.${windowStartMs}.${createHash("sha256").update(caller).digest("base64url")}`;
        totals.set(caller, await addTo(kv, key, delta));
      }),
    );
    return totals;
  }
}

async function addTo(kv: KV, key: string, delta: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== "PUT") {
        await kv.create(key, encoder.encode(String(delta)));
        return delta;
      }
      const total = Number(entry.string()) + delta;
      await kv.update(key, encoder.encode(String(total)), entry.revision);
      return total;
    } catch (error) {
      if (!isWrongRevision(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
