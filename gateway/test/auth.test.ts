import { AppError } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { parseBearerToken, TokenAuthenticator, type Principal } from "../src/auth.js";

// The resolver is the seam to the identity service; the end-to-end tests use the real one. Here a
// counting function isolates the cache's own rules (TTL, coalescing, eviction, failures).
function principalFor(token: string): Principal {
  return { caller: { userId: `user-${token}`, tokenId: `tok-${token}` }, user: { id: `user-${token}`, displayName: "", email: "", photoUrl: "" } };
}

function sessionPrincipalFor(secret: string): Principal {
  const principal = principalFor(secret);
  return {
    caller: { ...principal.caller, tokenId: `session-${secret}` },
    user: principal.user,
    session: { id: `session-${secret}`, method: "password", csrfToken: `csrf-${secret}`, expiresAt: undefined },
  };
}

function setup(
  options: {
    ttlMs?: number;
    staleIfErrorMs?: number;
    maxEntries?: number;
    valid?: Set<string>;
    upstreamDown?: () => boolean;
    expiresAt?: (token: string) => number | undefined;
  } = {},
) {
  let now = 1_000;
  const calls: string[] = [];
  const valid = options.valid ?? new Set(["good", "a", "b", "c"]);
  const authenticator = new TokenAuthenticator(
    async (token, kind) => {
      calls.push(token);
      await new Promise((r) => setTimeout(r, 5));
      if (options.upstreamDown?.()) throw new AppError("unavailable", "identity down");
      if (!valid.has(token)) throw AppError.unauthenticated("unknown token");
      return { principal: kind === "session" ? sessionPrincipalFor(token) : principalFor(token), expiresAt: options.expiresAt?.(token) };
    },
    { ttlMs: options.ttlMs ?? 5_000, staleIfErrorMs: options.staleIfErrorMs, maxEntries: options.maxEntries, now: () => now },
  );
  return { authenticator, calls, valid, advance: (ms: number) => (now += ms) };
}

describe("bearer header parsing", () => {
  it("accepts the bearer scheme case-insensitively", () => {
    expect(parseBearerToken("Bearer imp_abc-123")).toBe("imp_abc-123");
    expect(parseBearerToken("bearer imp_abc")).toBe("imp_abc");
  });

  it.each([undefined, "", "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "Bearer <script>", `Bearer ${"x".repeat(600)}`])(
    "rejects %j with unauthenticated",
    (header) => {
      expect(() => parseBearerToken(header)).toThrow(AppError);
      try {
        parseBearerToken(header);
      } catch (error) {
        expect((error as AppError).code).toBe("unauthenticated");
      }
    },
  );
});

describe("TokenAuthenticator", () => {
  it("reuses a resolved principal within the TTL and asks again after it", async () => {
    const { authenticator, calls, advance } = setup({ ttlMs: 1_000 });
    expect(await authenticator.authenticate("Bearer good")).toEqual(principalFor("good"));
    await authenticator.authenticate("Bearer good");
    expect(calls).toEqual(["good"]);
    advance(1_001);
    await authenticator.authenticate("Bearer good");
    expect(calls).toEqual(["good", "good"]);
  });

  it("coalesces concurrent lookups of one token into one call", async () => {
    const { authenticator, calls } = setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => authenticator.authenticate("Bearer good")));
    expect(new Set(results.map((p) => p.caller.userId))).toEqual(new Set(["user-good"]));
    expect(calls).toEqual(["good"]);
  });

  it("remembers a rejection only briefly, so a token issued a moment later works", async () => {
    const { authenticator, calls, valid, advance } = setup({ ttlMs: 60_000 });
    await expect(authenticator.authenticate("Bearer fresh")).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(authenticator.authenticate("Bearer fresh")).rejects.toMatchObject({ code: "unauthenticated" });
    expect(calls).toEqual(["fresh"]);
    valid.add("fresh");
    advance(1_001);
    await expect(authenticator.authenticate("Bearer fresh")).resolves.toEqual(principalFor("fresh"));
  });

  it("never caches upstream outages", async () => {
    let down = true;
    const { authenticator, calls } = setup({ upstreamDown: () => down });
    await expect(authenticator.authenticate("Bearer good")).rejects.toMatchObject({ code: "unavailable" });
    down = false;
    await expect(authenticator.authenticate("Bearer good")).resolves.toEqual(principalFor("good"));
    expect(calls).toEqual(["good", "good"]);
  });

  it("evicts the least recently used token beyond its bound", async () => {
    const { authenticator, calls } = setup({ maxEntries: 2 });
    await authenticator.authenticate("Bearer a");
    await authenticator.authenticate("Bearer b");
    await authenticator.authenticate("Bearer a"); // a is now the most recent
    await authenticator.authenticate("Bearer c"); // evicts b
    expect(authenticator.size).toBe(2);
    await authenticator.authenticate("Bearer a");
    await authenticator.authenticate("Bearer b");
    expect(calls).toEqual(["a", "b", "c", "b"]);
  });

  it("keeps a session cookie's secret and a bearer token apart, each cached as its kind", async () => {
    const { authenticator, calls } = setup();
    expect(await authenticator.authenticateRequest(undefined, "good")).toEqual(sessionPrincipalFor("good"));
    expect(await authenticator.authenticateRequest("Bearer good", "good")).toEqual(principalFor("good"));
    await authenticator.authenticateSession("good");
    await authenticator.authenticate("Bearer good");
    expect(calls).toEqual(["good", "good"]);
    await expect(authenticator.authenticateSession("bad secret!")).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(authenticator.authenticateRequest(undefined, undefined)).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("refuses a session signed out here at once", async () => {
    const { authenticator } = setup();
    await authenticator.authenticateSession("good");
    authenticator.revokeToken("session-good");
    await expect(authenticator.authenticateSession("good")).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("does not cache with a TTL of 0", async () => {
    const { authenticator, calls } = setup({ ttlMs: 0 });
    await authenticator.authenticate("Bearer good");
    await authenticator.authenticate("Bearer good");
    expect(calls).toEqual(["good", "good"]);
    expect(authenticator.size).toBe(0);
  });
});

describe("TokenAuthenticator while identity is unreachable (stale if error)", () => {
  function outage(options: { staleIfErrorMs?: number; expiresAt?: (token: string) => number | undefined } = {}) {
    let down = false;
    const context = setup({ ttlMs: 5_000, staleIfErrorMs: options.staleIfErrorMs ?? 300_000, upstreamDown: () => down, expiresAt: options.expiresAt });
    return { ...context, goDown: () => (down = true), comeBack: () => (down = false) };
  }

  it("keeps a token verified within the window working, and only within it", async () => {
    const { authenticator, advance, goDown } = outage();
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer good");
    goDown();
    advance(6_000);
    await expect(authenticator.authenticate("Bearer good")).resolves.toEqual(principalFor("good"));
    advance(300_000);
    await expect(authenticator.authenticate("Bearer good")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("never uses a session stale: signing out elsewhere records no event that could refuse it", async () => {
    const { authenticator, advance, goDown } = outage();
    authenticator.followingEvents();
    await authenticator.authenticateSession("good");
    goDown();
    advance(6_000);
    await expect(authenticator.authenticateSession("good")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("answers unavailable for a token never verified", async () => {
    const { authenticator, goDown } = outage();
    authenticator.followingEvents();
    goDown();
    await expect(authenticator.authenticate("Bearer good")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("refuses a token revoked by an event, before or during the outage, with 401", async () => {
    const { authenticator, advance, goDown } = outage();
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer a");
    await authenticator.authenticate("Bearer b");
    authenticator.revokeToken("tok-a");
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unauthenticated" });
    goDown();
    advance(60_000);
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unauthenticated" });
    authenticator.revokeToken("tok-b");
    await expect(authenticator.authenticate("Bearer b")).rejects.toMatchObject({ code: "unauthenticated" });
    // Repeated and late events change nothing more.
    authenticator.revokeToken("tok-a");
    authenticator.revokeToken("tok-b");
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("does not keep an answer older than a revocation that arrived while it was under way", async () => {
    const { authenticator, advance } = outage();
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer a");
    advance(6_000);
    const lookup = authenticator.authenticate("Bearer a");
    authenticator.revokeToken("tok-a");
    await expect(lookup).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("keeps rejections for the outage: a token identity refused stays refused", async () => {
    const { authenticator, advance, goDown } = outage();
    await expect(authenticator.authenticate("Bearer unknown")).rejects.toMatchObject({ code: "unauthenticated" });
    goDown();
    advance(10_000);
    await expect(authenticator.authenticate("Bearer unknown")).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("verifies a user's tokens again after an event about the user", async () => {
    const { authenticator, advance, goDown, comeBack, calls } = outage();
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer a");
    authenticator.forgetUser("user-a");
    await authenticator.authenticate("Bearer a");
    expect(calls).toEqual(["a", "a"]);
    authenticator.forgetUser("user-a");
    goDown();
    advance(6_000);
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unavailable" });
    comeBack();
    await expect(authenticator.authenticate("Bearer a")).resolves.toEqual(principalFor("a"));
  });

  it("uses no principal stale unless events are followed, nor one verified before a gap in them", async () => {
    const { authenticator, advance, goDown, comeBack } = outage();
    await authenticator.authenticate("Bearer a");
    goDown();
    advance(6_000);
    // Not following identity's events: a revocation could go unheard.
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unavailable" });
    comeBack();
    authenticator.followingEvents();
    advance(1);
    await authenticator.authenticate("Bearer a");
    authenticator.lostEvents();
    goDown();
    advance(6_000);
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unavailable" });
    // Reconnected: what was verified before may have missed an event.
    advance(1);
    authenticator.followingEvents();
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("never uses a token past its expiry, fresh or stale", async () => {
    // The clock starts at 1 000: "a" expires 3 s in, within the cache's TTL and the outage.
    const { authenticator, advance, goDown, calls } = outage({ expiresAt: (token) => (token === "a" ? 4_000 : undefined) });
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer a");
    advance(3_000);
    await authenticator.authenticate("Bearer a");
    expect(calls).toEqual(["a", "a"]);
    goDown();
    await expect(authenticator.authenticate("Bearer a")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("is off with a window of 0", async () => {
    const { authenticator, advance, goDown } = outage({ staleIfErrorMs: 0 });
    authenticator.followingEvents();
    await authenticator.authenticate("Bearer good");
    goDown();
    advance(6_000);
    await expect(authenticator.authenticate("Bearer good")).rejects.toMatchObject({ code: "unavailable" });
  });
});
