import { CacheBudget } from "@imprint/runtime";
import { createOrganization, createRevision, createSpace } from "@imprint/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RevisionCaches, StoreSession } from "../src/revisions/index.js";
import { indexingCaches } from "../src/search/index.js";
import { contentClients, newPage } from "./revisions-fixtures.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

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

describe("a pass over a whole revision's bodies", () => {
  let harness: ContentHarness;
  beforeAll(async () => {
    harness = await startContentHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("(a listing, link extraction, an export) reads them without pushing the reads' entries out of the budget", async () => {
    const clients = contentClients(harness);
    try {
      const org = await createOrganization(harness);
      const space = await createSpace(harness, org);
      const revisionId = await createRevision(clients, org.owner.caller, { spaceId: space.id }, async (draftId) => {
        for (let i = 0; i < 20; i++) {
          await clients.editing.createPage({ caller: org.owner.caller, draftId, page: newPage({ title: `Page ${i}`, markdown: `Body of page ${i}.` }) });
        }
      });
      const em = harness.content.orm.em.fork();
      const [revision] = await em.execute<{ store_id: string }[]>("select store_id from revisions where id = ?", [revisionId]);
      const storeId = revision!.store_id;
      const rows = await em.execute<{ body_id: string }[]>("select body_id from page_versions where store_id = ? and body_id is not null", [storeId]);
      const bodyIds = rows.map((row) => row.body_id);
      expect(bodyIds).toHaveLength(20);

      const budget = new CacheBudget(1024 * 1024);
      const session = new StoreSession(em, storeId, new RevisionCaches(budget));
      // One page read the usual way is kept.
      await session.bodies(bodyIds.slice(0, 1));
      const oneKept = budget.usedBytes;
      expect(oneKept).toBeGreaterThan(0);

      const passed = await session.bodies(bodyIds, { keep: false });
      expect([...passed.values()].map((body) => body.markdown).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `Body of page ${i}.`).sort());
      expect(budget.usedBytes).toBe(oneKept);

      // Read again the usual way, they are kept.
      await session.bodies(bodyIds);
      expect(budget.usedBytes).toBeGreaterThan(oneKept);
    } finally {
      clients.close();
    }
  });
});
