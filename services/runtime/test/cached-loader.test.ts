import { describe, expect, it } from "vitest";
import { CacheBudget } from "../src/cache-budget.js";
import { CachedLoader } from "../src/cached-loader.js";

/** A promise settled by the test. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A clock the test moves. */
function manualClock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("CachedLoader", () => {
  it("shares one load among concurrent loads of a key (single flight), and stores its value", async () => {
    const loader = new CachedLoader<string>({ name: "values", maxEntries: 10 });
    const upstream = deferred<string>();
    let calls = 0;
    const load = () => {
      calls += 1;
      return upstream.promise;
    };
    const first = loader.load("a", load);
    const second = loader.load("a", load);
    const other = loader.load("b", () => Promise.resolve("b1"));
    upstream.resolve("a1");
    expect(await Promise.all([first, second, other])).toEqual(["a1", "a1", "b1"]);
    expect(calls).toBe(1);
    expect(await loader.load("a", load)).toBe("a1");
    expect(calls).toBe(1);
    expect(loader.get("a")).toBe("a1");
  });

  it("loads again once the value is past its TTL, handing the loader the stale value", async () => {
    const clock = manualClock();
    const loader = new CachedLoader<number>({ name: "counts", maxEntries: 10, ttlMs: 100, now: clock.now });
    const seen: (number | undefined)[] = [];
    let version = 0;
    const load = (stale: { value: number } | undefined) => {
      seen.push(stale?.value);
      return Promise.resolve((version += 1));
    };
    expect(await loader.load("k", load)).toBe(1);
    clock.advance(99);
    expect(await loader.load("k", load)).toBe(1);
    expect(loader.has("k")).toBe(true);
    clock.advance(1);
    expect(loader.get("k")).toBeUndefined();
    expect(loader.stored("k")?.value).toBe(1);
    expect(await loader.load("k", load)).toBe(2);
    expect(seen).toEqual([undefined, 1]);
  });

  it("reads a TTL given as a function at each use, and a value's own expiry (freshUntil) over it", async () => {
    const clock = manualClock();
    let ttl = 1_000;
    const byTtl = new CachedLoader<string>({ name: "ttl", maxEntries: 10, ttlMs: () => ttl, now: clock.now });
    byTtl.set("k", "v");
    clock.advance(500);
    expect(byTtl.get("k")).toBe("v");
    ttl = 100;
    expect(byTtl.get("k")).toBeUndefined();

    const byExpiry = new CachedLoader<{ token: string; expiresAt: number }>({
      name: "expiry",
      maxEntries: 10,
      ttlMs: 60_000,
      freshUntil: (value) => value.expiresAt,
      now: clock.now,
    });
    byExpiry.set("t", { token: "x", expiresAt: clock.now() + 10 });
    expect(byExpiry.get("t")?.token).toBe("x");
    clock.advance(10);
    expect(byExpiry.get("t")).toBeUndefined();
  });

  it("keeps its values within its byte bound, dropping the least recently used first", () => {
    const loader = new CachedLoader<string>({ name: "texts", maxBytes: 10, bytes: (value) => value.length });
    loader.set("a", "aaaa");
    loader.set("b", "bbbb");
    expect(loader.get("a")).toBe("aaaa"); // "b" is now the least recently used
    loader.set("c", "cccc");
    expect([loader.get("a"), loader.get("b"), loader.get("c")]).toEqual(["aaaa", undefined, "cccc"]);
    expect(loader.bytes).toBe(8);
    loader.set("big", "x".repeat(11));
    expect(loader.has("big")).toBe(false);
    expect(loader.bytes).toBe(8);
    loader.set("a", "a");
    expect(loader.bytes).toBe(5);
    expect(loader.size).toBe(2);
  });

  it("evicts across every loader of a shared budget", () => {
    const budget = new CacheBudget(100);
    const bodies = new CachedLoader<string>({ name: "bodies", budget, bytes: () => 40 });
    const files = new CachedLoader<string>({ name: "files", budget, bytes: () => 40 });
    bodies.set("1", "body");
    files.set("1", "file");
    bodies.get("1");
    files.set("2", "file 2");
    expect(budget.usedBytes).toBe(80);
    expect([bodies.get("1"), files.get("1"), files.get("2")]).toEqual(["body", undefined, "file 2"]);
    expect(() => new CachedLoader<string>({ name: "bodies", budget, bytes: () => 1 })).toThrow(/already draws on this budget/);
  });

  it("invalidates by key and by key prefix; a load under way when its key is invalidated is answered but not stored", async () => {
    const loader = new CachedLoader<string>({ name: "roles", maxEntries: 100 });
    for (const key of ["org1/user1/t1", "org1/user1/t2", "org1/user2/t1", "org2/user1/t1"]) loader.set(key, key);
    loader.invalidatePrefix("org1/user1/");
    expect(["org1/user1/t1", "org1/user1/t2", "org1/user2/t1", "org2/user1/t1"].map((key) => loader.has(key))).toEqual([false, false, true, true]);
    loader.invalidate("org2/user1/t1");
    expect(loader.has("org2/user1/t1")).toBe(false);

    const before = deferred<string>();
    const inFlight = loader.load("org1/user1/t1", () => before.promise);
    loader.invalidatePrefix("org1/");
    // A load after the invalidation does not join the one from before it.
    const after = loader.load("org1/user1/t1", () => Promise.resolve("after"));
    before.resolve("before");
    expect(await inFlight).toBe("before");
    expect(await after).toBe("after");
    expect(loader.get("org1/user1/t1")).toBe("after");

    const dropped = deferred<string>();
    const cleared = loader.load("x", () => dropped.promise);
    loader.clear();
    dropped.resolve("old");
    expect(await cleared).toBe("old");
    expect(loader.size).toBe(0);
  });

  it("stores nothing of a failed load, answers the stale value when staleIfError says so, and stores only what `keep` accepts", async () => {
    const clock = manualClock();
    const unreachable = new Error("unreachable");
    const loader = new CachedLoader<string>({
      name: "stale",
      maxEntries: 10,
      ttlMs: 10,
      now: clock.now,
      staleIfError: (error, stale) => error === unreachable && clock.now() - stale.storedAt < 100,
    });
    await expect(loader.load("k", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(loader.size).toBe(0);
    await expect(loader.load("k", () => Promise.reject(unreachable))).rejects.toBe(unreachable);

    loader.set("k", "v1");
    clock.advance(50);
    expect(await loader.load("k", () => Promise.reject(unreachable))).toBe("v1");
    // Answered stale, not stored again: it is as old as before.
    expect(loader.stored("k")?.storedAt).toBe(clock.now() - 50);
    await expect(loader.load("k", () => Promise.reject(new Error("other")))).rejects.toThrow("other");
    clock.advance(50);
    await expect(loader.load("k", () => Promise.reject(unreachable))).rejects.toBe(unreachable);

    const kept = new CachedLoader<string | null>({ name: "kept", maxEntries: 10 });
    expect(await kept.load("missing", () => Promise.resolve(null), { keep: (value) => value !== null })).toBeNull();
    expect(kept.size).toBe(0);
    // A loader that throws before returning a promise fails the load alone.
    await expect(
      kept.load("sync", () => {
        throw new Error("at once");
      }),
    ).rejects.toThrow("at once");
    expect(await kept.load("sync", () => Promise.resolve("later"))).toBe("later");
  });
});
