import { createHash } from "node:crypto";
import type { Caller } from "@imprint/proto/common/v1";
import type { User } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import { CacheBudget, type BudgetedCache } from "@imprint/runtime/core";

/** Who is calling: the identity service's answer for a bearer token. */
export interface Principal {
  caller: Caller;
  user: User;
}

/** Looks a token up in the identity service (AuthenticateToken). */
export type ResolvePrincipal = (token: string) => Promise<Principal>;

export interface TokenAuthenticatorOptions {
  /** How long a resolved principal is reused; also the longest a revoked token keeps working. 0 disables caching. */
  ttlMs: number;
  /** Rejections are remembered far shorter, so a token issued a moment ago works almost at once. */
  failureTtlMs?: number;
  /** Bound on cached tokens; the least recently used are dropped first. */
  maxEntries?: number;
  /** The process's cache budget the cached principals count against; unbounded in bytes when absent. */
  budget?: CacheBudget;
  now?: () => number;
}

type CacheEntry = { expiresAt: number } & ({ principal: Principal } | { failure: AppError });

/**
 * What a cached token is counted as against the cache budget: its key and principal as UTF-16
 * text plus a fixed allowance for the objects holding them (about what V8 spends on them).
 */
function entryBytes(key: string, entry: CacheEntry): number {
  const held = "principal" in entry ? JSON.stringify(entry.principal).length : entry.failure.message.length;
  return 2 * (key.length + held) + 256;
}

// RFC 6750 b64token, bounded so an absurd header never reaches the identity service.
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]{1,512}=*) *$/i;

/** Extracts the token from an Authorization header; 401 when missing or not a bearer credential. */
export function parseBearerToken(header: string | undefined): string {
  if (header === undefined || header === "") throw AppError.unauthenticated("Missing access token: send Authorization: Bearer <token>");
  const match = BEARER.exec(header);
  if (!match?.[1]) throw AppError.unauthenticated('Malformed Authorization header: expected "Bearer <token>"');
  return match[1];
}

/**
 * Resolves bearer tokens into principals with an in-process cache keyed by a hash of the token
 * (secrets are never kept as map keys), and coalesces concurrent lookups of the same token into one
 * upstream call, so a burst of requests with a fresh token costs one AuthenticateToken.
 */
export class TokenAuthenticator {
  private readonly cache: BudgetedCache<CacheEntry>;
  private readonly inFlight = new Map<string, Promise<Principal>>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly resolve: ResolvePrincipal,
    options: TokenAuthenticatorOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.failureTtlMs = Math.min(options.failureTtlMs ?? 1_000, options.ttlMs);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.cache = (options.budget ?? new CacheBudget(Number.POSITIVE_INFINITY)).cache("tokens");
  }

  /** Authenticates an Authorization header value; rejects with AppError unauthenticated (or unavailable). */
  authenticate(header: string | undefined): Promise<Principal> {
    let token: string;
    try {
      token = parseBearerToken(header);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : AppError.unauthenticated());
    }
    const key = createHash("sha256").update(token).digest("base64url");

    const cached = this.cache.get(key);
    if (cached) {
      if (cached.expiresAt > this.now()) {
        return "principal" in cached ? Promise.resolve(cached.principal) : Promise.reject(cached.failure);
      }
      this.cache.delete(key);
    }

    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const lookup = this.lookup(key, token).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  /** Number of cached tokens (for tests and metrics). */
  get size(): number {
    return this.cache.size;
  }

  private async lookup(key: string, token: string): Promise<Principal> {
    try {
      const principal = await this.resolve(token);
      this.remember(key, { principal, expiresAt: this.now() + this.ttlMs }, this.ttlMs);
      return principal;
    } catch (error) {
      if (error instanceof AppError && error.code === "unauthenticated") {
        const failure = AppError.unauthenticated("Invalid or revoked access token");
        this.remember(key, { failure, expiresAt: this.now() + this.failureTtlMs }, this.failureTtlMs);
        throw failure;
      }
      // Upstream trouble (unavailable, deadline) says nothing about the token: never cached.
      throw error;
    }
  }

  private remember(key: string, entry: CacheEntry, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.cache.set(key, entry, entryBytes(key, entry));
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.oldestKey();
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}
