import { CacheBudget } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { RevisionCaches } from "../src/revisions/index.js";
import { indexingCaches } from "../src/search/index.js";

const body = (id: string, characters: number) => ({ id, markdown: "x".repeat(characters), document: "{}" });

describe("content's tree caches", () => {
  it("keep every set of the process (the reads', prewarming's, indexing's) within one budget, least recently used dropped first", async () => {
    const budget = new CacheBudget(64 * 1024);
    const reads = new RevisionCaches(budget);
    const prewarm = indexingCaches(budget, "prewarm ");
    const indexing = indexingCaches(budget, "indexing ");
    let loads = 0;
    const load = (caches: RevisionCaches, id: string) =>
      caches.bodies.load(id, async () => {
        loads += 1;
        return body(id, 1000);
      });

    // 100 bodies of ~2 KB each through the reads' caches: far more than the budget.
    for (let i = 0; i < 100; i++) await load(reads, `body-${i}`);
    expect(loads).toBe(100);
    expect(budget.usedBytes).toBeLessThanOrEqual(64 * 1024);
    expect(budget.usedBytes).toBeGreaterThan(32 * 1024);
    // The last ones are kept, the first ones were dropped.
    await load(reads, "body-99");
    expect(loads).toBe(100);
    await load(reads, "body-0");
    expect(loads).toBe(101);

    // Tree nodes of indexing draw on the same budget, and push the reads' bodies out.
    for (let i = 0; i < 200; i++) {
      await indexing.nodes.load(`node-${i}`, async () => ({
        kind: "leaf" as const,
        entries: Array.from({ length: 4 }, (_, n): [string, string] => [`k${n}`, `v${n}`]),
      }));
    }
    expect(budget.usedBytes).toBeLessThanOrEqual(64 * 1024);
    await load(reads, "body-99");
    expect(loads).toBe(102);

    // Indexing's page bodies pass through once: they are bounded apart and charge nothing here.
    const used = budget.usedBytes;
    for (let i = 0; i < 20; i++) await load(prewarm, `indexed-${i}`);
    expect(budget.usedBytes).toBe(used);
  });
});
