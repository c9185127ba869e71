import { createHash, timingSafeEqual } from "node:crypto";
import type { Caller } from "@imprint/proto/common/v1";
import type { User } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import { CacheBudget, type BudgetedCache } from "@imprint/runtime/core";

/** The session a request authenticated with (its cookie), as identity described it. */
export interface PrincipalSession {
  id: string;
  /** "password", later "oidc:<providerId>" or "saml:<providerId>". */
  method: string;
  /** What every state-changing request of the session must carry in X-CSRF-Token. */
  csrfToken: string;
  /** When it ends unless used again (as of identity's answer). */
  expiresAt: Date | undefined;
}

/** Who is calling: the identity service's answer for a bearer token or a session cookie. */
export interface Principal {
  caller: Caller;
  user: User;
  /** Set when the request authenticated with a session cookie, not a bearer token. */
  session?: PrincipalSession;
}

/**
 * Looks a credential up in the identity service (AuthenticateToken, `session` for a session
 * cookie's secret): its principal, and when it expires (ms since the epoch; absent: never).
 */
export type ResolvePrincipal = (token: string, kind: "bearer" | "session") => Promise<{ principal: Principal; expiresAt?: number }>;

/** The cookie a browser session is kept in (HttpOnly, SameSite=Lax, Secure behind https). */
export const SESSION_COOKIE = "imprint_session";
/** The header a session's state-changing request carries its CSRF token in. */
export const CSRF_HEADER = "X-CSRF-Token";
/** Methods that change nothing: no CSRF token needed. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A request authenticated by its session cookie and changing state must carry the session's CSRF
 * token in X-CSRF-Token (403 otherwise, whatever its Origin or Referer say). Bearer requests are
 * not concerned: a browser never adds an Authorization header by itself.
 */
export function assertCsrf(principal: Principal, method: string, header: string | undefined): void {
  if (!principal.session || SAFE_METHODS.has(method.toUpperCase())) return;
  const expected = createHash("sha256").update(principal.session.csrfToken).digest();
  const sent = createHash("sha256")
    .update(header ?? "")
    .digest();
  if (!header || !timingSafeEqual(expected, sent)) {
    throw AppError.permissionDenied(`Missing or wrong ${CSRF_HEADER} header: a request signed in with a session cookie must send the session's csrfToken`);
  }
}

export interface TokenAuthenticatorOptions {
  /** How long a resolved principal is reused; also the longest a revoked token keeps working. 0 disables caching. */
  ttlMs: number;
  /** Rejections are remembered far shorter, so a token issued a moment ago works almost at once. */
  failureTtlMs?: number;
  /**
   * While identity is unreachable, how long after identity last verified a token its answer is
   * still used (stale if error); 0 disables. Principals are used so only while identity's events
   * are followed (see {@link TokenAuthenticator.followingEvents}); rejections always.
   */
  staleIfErrorMs?: number;
  /** Bound on cached tokens; the least recently used are dropped first. */
  maxEntries?: number;
  /** The process's cache budget the cached principals count against; unbounded in bytes when absent. */
  budget?: CacheBudget;
  now?: () => number;
}

type CacheEntry = {
  /** When identity answered (or an event said the token was revoked). */
  verifiedAt: number;
  /** Until when the answer is used without asking identity. */
  expiresAt: number;
} & ({ principal: Principal /** When the token itself expires: never used past it, stale or not. */; tokenExpiresAt?: number } | { failure: AppError });

/** Failures that say identity cannot answer now, nothing about the token. */
function identityUnreachable(error: unknown): boolean {
  return error instanceof AppError && (error.code === "unavailable" || error.code === "deadline_exceeded");
}

const REVOKED = "Invalid or revoked access token";

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
 *
 * Stale if error: while identity is unreachable (unavailable, deadline exceeded), a token identity
 * verified less than `staleIfErrorMs` ago keeps its last answer, so an identity outage does not
 * take down the routes that do not need identity. That is safe only while identity's events are
 * heard: `token.revoked` turns the token's entry into a rejection at once (so a token revoked
 * before the outage is refused with 401), and an event about a user drops their principals (they
 * are verified again). A gap in the events (a reconnect) makes every principal verified before it
 * unfit for stale use. Rejections are kept for stale use regardless: a token never becomes valid
 * again. Sessions (cookies) are cached like tokens, under keys of their own, but never used stale:
 * a sign-out records no event.
 */
export class TokenAuthenticator {
  private readonly cache: BudgetedCache<CacheEntry>;
  private readonly inFlight = new Map<string, Promise<Principal>>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Principals verified before this are not used stale (events since may have been missed). */
  private trustedSince = Number.POSITIVE_INFINITY;

  constructor(
    private readonly resolve: ResolvePrincipal,
    options: TokenAuthenticatorOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.failureTtlMs = Math.min(options.failureTtlMs ?? 1_000, options.ttlMs);
    this.staleIfErrorMs = options.staleIfErrorMs ?? 0;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.cache = (options.budget ?? new CacheBudget(Number.POSITIVE_INFINITY)).cache("tokens");
  }

  /**
   * A request's credential: its Authorization header when it has one, else its session cookie
   * (a request with both is a bearer request).
   */
  authenticateRequest(header: string | undefined, sessionCookie: string | undefined): Promise<Principal> {
    if (!header && sessionCookie) return this.authenticateSession(sessionCookie);
    return this.authenticate(header);
  }

  /** Authenticates a session cookie's value; rejects with AppError unauthenticated (or unavailable). */
  authenticateSession(secret: string): Promise<Principal> {
    if (!/^[A-Za-z0-9_-]{1,256}$/.test(secret)) return Promise.reject(AppError.unauthenticated("Your session has ended: sign in again"));
    return this.authenticateCredential(secret, "session");
  }

  /** Authenticates an Authorization header value; rejects with AppError unauthenticated (or unavailable). */
  authenticate(header: string | undefined): Promise<Principal> {
    let token: string;
    try {
      token = parseBearerToken(header);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : AppError.unauthenticated());
    }
    return this.authenticateCredential(token, "bearer");
  }

  private authenticateCredential(token: string, kind: "bearer" | "session"): Promise<Principal> {
    // A session's secret and a token's never share a key, whatever they are.
    const key = (kind === "session" ? "s:" : "") + createHash("sha256").update(token).digest("base64url");

    const cached = this.cache.get(key);
    if (cached) {
      const now = this.now();
      if (cached.expiresAt > now) {
        return "principal" in cached ? Promise.resolve(cached.principal) : Promise.reject(cached.failure);
      }
      // Kept past its freshness only for stale use.
      if (now - cached.verifiedAt >= this.staleIfErrorMs) this.cache.delete(key);
    }

    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const lookup = this.lookup(key, token, kind).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  /**
   * Identity's events are followed from now on (called when the watch starts and after each
   * reconnect): principals verified before may have missed an event, so they are not used stale.
   */
  followingEvents(): void {
    this.trustedSince = this.now();
  }

  /** Identity's events are no longer heard (disconnected): no principal is used stale until they are again. */
  lostEvents(): void {
    this.trustedSince = Number.POSITIVE_INFINITY;
  }

  /** `token.revoked`, or a session signed out here: the token (or session) is refused from now on, identity reachable or not. */
  revokeToken(tokenId: string): void {
    const now = this.now();
    for (const [key, entry] of this.cache.entries()) {
      if (!("principal" in entry) || entry.principal.caller.tokenId !== tokenId) continue;
      const failure = AppError.unauthenticated(REVOKED);
      this.remember(key, { failure, verifiedAt: now, expiresAt: now + this.failureTtlMs });
    }
  }

  /** An event about the user (membership, profile): their principals are verified again at their next use. */
  forgetUser(userId: string): void {
    for (const [key, entry] of this.cache.entries()) {
      if ("principal" in entry && entry.principal.caller.userId === userId) this.cache.delete(key);
    }
  }

  /** Number of cached tokens (for tests and metrics). */
  get size(): number {
    return this.cache.size;
  }

  private async lookup(key: string, token: string, kind: "bearer" | "session"): Promise<Principal> {
    const startedAt = this.now();
    try {
      const { principal, expiresAt: tokenExpiresAt } = await this.resolve(token, kind);
      // `token.revoked` may have arrived while the lookup was under way (lookups of a token are
      // coalesced, so a rejection written since is the event's): the older answer is not kept.
      const current = this.cache.get(key);
      if (current && "failure" in current && current.verifiedAt >= startedAt) throw current.failure;
      const now = this.now();
      this.remember(key, { principal, tokenExpiresAt, verifiedAt: now, expiresAt: Math.min(now + this.ttlMs, tokenExpiresAt ?? Number.POSITIVE_INFINITY) });
      return principal;
    } catch (error) {
      if (error instanceof AppError && error.code === "unauthenticated") {
        const failure = AppError.unauthenticated(REVOKED);
        const now = this.now();
        this.remember(key, { failure, verifiedAt: now, expiresAt: now + this.failureTtlMs });
        throw failure;
      }
      // Upstream trouble (unavailable, deadline) says nothing about the token: never cached, but
      // the last answer is used when it is recent enough and nothing since said otherwise.
      if (identityUnreachable(error)) {
        const stale = this.staleAnswer(key);
        if (stale) {
          if ("failure" in stale) throw stale.failure;
          return stale.principal;
        }
      }
      throw error;
    }
  }

  private staleAnswer(key: string): CacheEntry | undefined {
    const entry = this.cache.get(key);
    if (!entry || this.now() - entry.verifiedAt >= this.staleIfErrorMs) return undefined;
    if (
      "principal" in entry &&
      // A session is never used stale: its end (a sign-out on another replica) is no event this process hears.
      (entry.principal.session || entry.verifiedAt < this.trustedSince || this.now() >= (entry.tokenExpiresAt ?? Number.POSITIVE_INFINITY))
    )
      return undefined;
    return entry;
  }

  private remember(key: string, entry: CacheEntry): void {
    if (Math.max(entry.expiresAt - entry.verifiedAt, this.staleIfErrorMs) <= 0) return;
    this.cache.set(key, entry, entryBytes(key, entry));
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.oldestKey();
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}
