import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOrganization,
  createRevision,
  createSpace,
  eventually,
  readEvents,
  testLogger,
  type TestOrganization,
  deliverInPlan,
  deliveryPlans,
  republished,
} from "@imprint/runtime/testing";
import { searchIndexConsumer } from "../src/search/consumers/index-events.js";
import { dropSpaceFromIndex } from "../src/search/use-cases/index-space.js";
import { RevisionCaches } from "../src/revisions/index.js";
import { contentClients, newPage, pageChange, type ContentClients } from "./revisions-fixtures.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * The search index is commutative by construction (every event indexes the space as it is now,
 * under a per-space lock): random commits, deletions and restorations of a space run on the real
 * service; its events (from the stream) are then fed to the index's handler shuffled, duplicated
 * and with some held back to the end, from an empty index, and the space's index rows must equal
 * those in-order delivery (the running consumer, through NATS) left.
 */
let harness: ContentHarness;
let clients: ContentClients;
let org: TestOrganization;
const logger = testLogger("search-index-property");
const handler = searchIndexConsumer({ caches: new RevisionCaches(), clock: () => new Date() }, "property-search").handler;
const INDEXED = new Set(["revision.created", "space.deleted", "space.restored", "space.purged"]);

beforeAll(async () => {
  harness = await startContentHarness();
  clients = contentClients(harness);
  org = await createOrganization(harness);
});
afterAll(async () => {
  clients?.close();
  await harness?.stop();
});

const MAX_EVENTS = 16;
const delivery = deliveryPlans(MAX_EVENTS);

type Operation = { op: "write"; page: number; word: string } | { op: "delete" } | { op: "restore" };
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ op: fc.constant("write" as const), page: fc.nat({ max: 2 }), word: fc.constantFrom("alpha", "bravo", "charlie", "delta") }),
  fc.record({ op: fc.constant("write" as const), page: fc.nat({ max: 2 }), word: fc.constantFrom("echo", "foxtrot") }),
  fc.constant({ op: "delete" as const }),
  fc.constant({ op: "restore" as const }),
);

/** What the index holds of the space. */
async function indexOf(spaceId: string): Promise<unknown[]> {
  const em = harness.content.orm.em.fork();
  return [
    await em.execute(`select revision_id from search_spaces where space_id = ?`, [spaceId]),
    await em.execute(`select page_id, version_id, title, path from search_pages where space_id = ? order by page_id`, [spaceId]),
    await em.execute(`select page_id, position, title, body from search_sections where space_id = ? order by page_id, position`, [spaceId]),
  ];
}

describe("the search index", () => {
  it("ends as in-order delivery leaves it under any order, duplication and delay of the space's events", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 6 }), fc.array(delivery, { minLength: 2, maxLength: 2 }), async (operations, plans) => {
        const since = new Date();
        const caller = org.owner.caller;
        const space = await createSpace(harness, org);
        const pages: (string | undefined)[] = [];
        let deleted = false;
        let head = "";
        for (const operation of [{ op: "write", page: 0, word: "first" } as Operation, ...operations]) {
          if (operation.op === "delete" && !deleted) {
            await harness.spaces.deleteSpace({ caller, spaceId: space.id });
            deleted = true;
          } else if (operation.op === "restore" && deleted) {
            await harness.spaces.restoreSpace({ caller, spaceId: space.id });
            deleted = false;
          } else if (operation.op === "write" && !deleted) {
            const markdown = `The ${operation.word} section.\n\n## ${operation.word}\n\nMore about ${operation.word}.`;
            head = await createRevision(clients, caller, { spaceId: space.id }, async (draftId) => {
              const pageId = pages[operation.page];
              if (pageId) return clients.editing.updatePage({ caller, draftId, page: pageChange({ pageId, markdown }) });
              const created = await clients.editing.createPage({ caller, draftId, page: newPage({ title: `Page ${operation.page}`, markdown }) });
              pages[operation.page] = created.page!.id;
            });
          }
        }
        // In order: the running consumer, through NATS, reaches the space as it is now. It is done
        // once it recorded every one of the space's events as processed: an index that merely
        // looks right may be between a deletion and a restoration still to come.
        // Every one of them: as many as content's outbox recorded (published a moment later).
        const [recorded] = await harness.content.orm.em
          .fork()
          .execute<{ count: string }[]>(`select count(*) as count from outbox_events where type = any(?::text[]) and envelope->'payload'->>'spaceId' = ?`, [
            `{${[...INDEXED].join(",")}}`,
            space.id,
          ]);
        const events = await eventually(async () => {
          const found = (await readEvents("content", { since, payload: { spaceId: space.id } })).filter((event) => INDEXED.has(event.type));
          return found.length === Number(recorded?.count) ? found : undefined;
        });
        const ids = `{${events.map((event) => event.id).join(",")}}`;
        await eventually(async () => {
          const [row] = await harness.content.orm.em
            .fork()
            .execute<{ count: string }[]>(
              `select count(*) as count from processed_events where consumer like 'content-search-%' and event_id = any(?::uuid[])`,
              [ids],
            );
          return Number(row?.count ?? 0) === events.length;
        });
        const inOrder = await indexOf(space.id);
        const [indexedSpaces] = inOrder as { revision_id: string }[][];
        expect(deleted ? indexedSpaces!.length === 0 : indexedSpaces![0]?.revision_id === head).toBe(true);
        for (const plan of plans) {
          await dropSpaceFromIndex(harness.content.orm.em.fork(), space.id);
          for (const event of deliverInPlan(events, plan, republished)) {
            await harness.content.orm.em.fork().transactional((em) => handler(event, { em, attempt: 1, logger }));
          }
          expect(await indexOf(space.id)).toEqual(inOrder);
        }
      }),
      { numRuns: 15, endOnFailure: true },
    );
  });
});
