import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, createSpace, testLogger, type TestOrganization, deliverInPlan, deliveryPlans } from "@imprint/runtime/testing";
import type { EventEnvelope, EventHandler } from "@imprint/runtime";
import { collaborationCountersConsumer } from "../src/spaces/consumers/collaboration-counters.js";
import { spacePublicationsConsumer } from "../src/spaces/consumers/space-publications.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * The spaces' counters (from collaboration) and published addresses (from publishing) converge
 * whatever the delivery: a random history of a space's announcements (each with the version its
 * producer gives it, one more per change) fed to the consumer's handler shuffled, duplicated and
 * with some held back to the end leaves the space as in-order delivery does (the last one).
 */
let harness: ContentHarness;
let org: TestOrganization;
const logger = testLogger("space-projections-property");

beforeAll(async () => {
  harness = await startContentHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const MAX_EVENTS = 24;
const delivery = deliveryPlans(MAX_EVENTS);

async function apply(handler: EventHandler, events: readonly EventEnvelope[]): Promise<void> {
  for (const event of events) {
    await harness.content.orm.em.fork().transactional((em) => handler({ ...event, id: randomUUID() }, { em, attempt: 1, logger }));
  }
}

function envelope(context: string, type: string, payload: Record<string, unknown>): EventEnvelope {
  return {
    id: randomUUID(),
    type,
    subject: `imprint.${context}.v1.${type}`,
    occurredAt: new Date().toISOString(),
    organizationId: org.organizationId,
    actor: null,
    payload,
  };
}

async function stateOf(spaceId: string): Promise<Record<string, unknown>> {
  const [row] = await harness.content.orm.em
    .fork()
    .execute<Record<string, unknown>[]>(
      `select change_requests, change_requests_open, change_requests_draft, comments, counters_version, published_address, published_version from spaces where id = ?`,
      [spaceId],
    );
  return { ...row, counters_version: Number(row!.counters_version) };
}

const counts = fc.record({
  changeRequests: fc.nat({ max: 50 }),
  changeRequestsOpen: fc.nat({ max: 50 }),
  changeRequestsDraft: fc.nat({ max: 50 }),
  comments: fc.nat({ max: 50 }),
});
const address = fc.option(fc.record({ basename: fc.constantFrom("docs", "help", "api"), path: fc.constantFrom("", "guide", "reference") }), { nil: null });

describe("a space's projections of other services' announcements", () => {
  it("keep the counters of the newest version whatever the order, duplication and delay", async () => {
    const handler = collaborationCountersConsumer("property-counters").handler;
    await fc.assert(
      fc.asyncProperty(
        fc.array(counts, { minLength: 1, maxLength: MAX_EVENTS }),
        fc.array(delivery, { minLength: 2, maxLength: 2 }),
        async (history, plans) => {
          const events = (spaceId: string) =>
            history.map((count, i) =>
              envelope("collaboration", "comment.created", { spaceId, commentId: randomUUID(), spaceCounters: { ...count, version: i + 1 } }),
            );
          const inOrder = await createSpace(harness, org);
          await apply(handler, events(inOrder.id));
          const expected = await stateOf(inOrder.id);
          expect(expected).toMatchObject({ counters_version: history.length, comments: history.at(-1)!.comments });
          for (const plan of plans) {
            const space = await createSpace(harness, org);
            await apply(handler, deliverInPlan(events(space.id), plan));
            expect(await stateOf(space.id)).toEqual(expected);
          }
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it("keep the published address of the newest version whatever the order, duplication and delay", async () => {
    const handler = spacePublicationsConsumer("property-publications").handler;
    await fc.assert(
      fc.asyncProperty(
        fc.array(address, { minLength: 1, maxLength: MAX_EVENTS }),
        fc.array(delivery, { minLength: 2, maxLength: 2 }),
        async (history, plans) => {
          const siteId = randomUUID();
          const events = (spaceId: string) =>
            history.map((where, i) =>
              envelope("publishing", "space_publication.updated", {
                spaceId,
                version: i + 1,
                published: where !== null,
                ...(where
                  ? {
                      address: {
                        siteId,
                        organizationId: org.organizationId,
                        basename: where.basename,
                        hostname: "",
                        proxy: "",
                        sectionPath: "",
                        path: where.path,
                      },
                    }
                  : {}),
              }),
            );
          const inOrder = await createSpace(harness, org);
          await apply(handler, events(inOrder.id));
          const expected = await stateOf(inOrder.id);
          expect(expected).toMatchObject({ published_version: history.length });
          for (const plan of plans) {
            const space = await createSpace(harness, org);
            await apply(handler, deliverInPlan(events(space.id), plan));
            expect(await stateOf(space.id)).toEqual(expected);
          }
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it("skip announcements about a space content does not have (first sight of a purged or unknown space)", async () => {
    const spaceId = randomUUID();
    await apply(collaborationCountersConsumer("property-counters").handler, [
      envelope("collaboration", "comment.created", {
        spaceId,
        commentId: randomUUID(),
        spaceCounters: { changeRequests: 1, changeRequestsOpen: 1, changeRequestsDraft: 0, comments: 1, version: 1 },
      }),
    ]);
    await apply(spacePublicationsConsumer("property-publications").handler, [
      envelope("publishing", "space_publication.updated", { spaceId, version: 1, published: false }),
    ]);
    const rows = await harness.content.orm.em.fork().execute(`select id from spaces where id = ?`, [spaceId]);
    expect(rows).toEqual([]);
  });
});
