import { describe, expect, it } from "vitest";
import { clientAddress, TrustedProxies } from "../src/rate-limit/client-address.js";
import { RateLimiter, type SharedWindowCounts } from "../src/rate-limit/rate-limiter.js";
import { testLogger } from "../src/testing/logger.js";

describe("clientAddress", () => {
  const trusted = TrustedProxies.parse("10.0.0.0/8, 192.0.2.1, fd00::/8");

  it("is the connection's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("10.1.2.3", "198.51.100.1", TrustedProxies.none)).toBe("10.1.2.3");
    expect(clientAddress("::ffff:203.0.113.5", "198.51.100.1", TrustedProxies.none)).toBe("203.0.113.5");
  });

  it("is the right-most address a trusted proxy did not add, behind trusted proxies", () => {
    expect(clientAddress("10.1.2.3", "198.51.100.1, 203.0.113.9, 192.0.2.1", trusted)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:10.1.2.3", ["198.51.100.1", "203.0.113.9"], trusted)).toBe("203.0.113.9");
    expect(clientAddress("fd00::1", "2001:db8::7", trusted)).toBe("2001:db8::7");
    // Every hop trusted: the left-most; no header: the peer.
    expect(clientAddress("10.1.2.3", "10.9.9.9, 192.0.2.1", trusted)).toBe("10.9.9.9");
    expect(clientAddress("10.1.2.3", undefined, trusted)).toBe("10.1.2.3");
    // A peer not trusted is the client, even when it sends the header.
    expect(clientAddress("203.0.113.1", "10.0.0.1", trusted)).toBe("203.0.113.1");
  });

  it("refuses entries that are neither addresses nor CIDR ranges", () => {
    expect(() => TrustedProxies.parse("10.0.0.0/33")).toThrow(/invalid prefix length/);
    expect(() => TrustedProxies.parse("proxy.internal")).toThrow(/not an IP address or a CIDR range/);
  });
});

describe("RateLimiter", () => {
  it("counts per key in windows aligned on the epoch, whole again in the next", async () => {
    let now = 120_000 + 15_000;
    const limiter = new RateLimiter({ windowMs: 60_000, logger: testLogger(), now: () => now });
    expect(limiter.take("a", 2)).toEqual({ allowed: true, limit: 2, remaining: 1, resetAtMs: 180_000, resetInMs: 45_000 });
    expect(limiter.take("a", 2).remaining).toBe(0);
    expect(limiter.take("a", 2)).toMatchObject({ allowed: false, remaining: 0 });
    expect(limiter.take("b", 2).allowed).toBe(true);
    now = 180_000;
    expect(limiter.take("a", 2)).toMatchObject({ allowed: true, remaining: 1, resetAtMs: 240_000 });
    await limiter.close();
  });

  it("learns the other replicas' counts at each flush, and counts alone (with a warning) while they cannot be reached", async () => {
    const totals = new Map<string, number>();
    let reachable = true;
    // Another replica's 5 requests of "a" already counted.
    totals.set("0:a", 5);
    const shared: SharedWindowCounts = {
      add: (windowStartMs, deltas) => {
        if (!reachable) return Promise.reject(new Error("NATS is not connected"));
        const answer = new Map<string, number>();
        for (const [key, delta] of deltas) {
          const total = (totals.get(`${windowStartMs}:${key}`) ?? 0) + delta;
          totals.set(`${windowStartMs}:${key}`, total);
          answer.set(key, total);
        }
        return Promise.resolve(answer);
      },
    };
    const logger = testLogger("limiter", { level: "warn", record: true });
    const limiter = new RateLimiter({ windowMs: 60_000, shared, flushEveryMs: 60_000, logger, now: () => 1_000 });
    expect(limiter.take("a", 8).remaining).toBe(7);
    await limiter.flush();
    expect(limiter.take("a", 8).remaining).toBe(1);
    reachable = false;
    await limiter.flush();
    expect(limiter.take("a", 8)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take("a", 8)).toMatchObject({ allowed: false });
    expect(logger.lines).toEqual([expect.objectContaining({ level: "warn", msg: "rate limits counted per replica: the shared counts cannot be reached" })]);
    await limiter.close();
  });
});
