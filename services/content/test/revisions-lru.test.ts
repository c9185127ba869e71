import { describe, expect, it } from "vitest";
import { Lru } from "../src/lru.js";

describe("revision store LRU", () => {
  it("keeps recently read entries and forgets the least recent past its capacity", () => {
    const cache = new Lru<string, number>(4);
    for (const key of ["a", "b", "c", "d"]) cache.set(key, key.charCodeAt(0));
    expect(cache.get("a")).toBe(97); // "a" is now recent
    for (const key of ["e", "f", "g"]) cache.set(key, 0);
    expect(cache.get("a")).toBe(97);
    expect(cache.has("b")).toBe(false);
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  it("never holds more than its capacity in weight, and skips entries heavier than the capacity", () => {
    const cache = new Lru<string, string>(10, (value) => value.length);
    cache.set("big", "x".repeat(11));
    expect(cache.has("big")).toBe(false);
    for (let i = 0; i < 50; i++) cache.set(`k${i}`, "x".repeat((i % 4) + 1));
    let weight = 0;
    for (let i = 0; i < 50; i++) {
      const value = cache.get(`k${i}`);
      if (value) weight += value.length;
    }
    expect(weight).toBeLessThanOrEqual(10);
    expect(cache.get("k49")).toBe("xx");
  });

  it("replaces and deletes entries", () => {
    const cache = new Lru<string, number>(4);
    cache.set("a", 1);
    cache.set("a", 2);
    expect(cache.get("a")).toBe(2);
    expect(cache.size).toBe(1);
    cache.delete("a");
    expect(cache.has("a")).toBe(false);
    expect(cache.size).toBe(0);
  });
});
