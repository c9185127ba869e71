import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, type EventEnvelope } from "@imprint/runtime";
import {
  createOrganization,
  createPage,
  createRevision,
  createSpace,
  deliverInPlan,
  deliveryPlans,
  eventually,
  pageUpdate,
  readEvents,
  republished,
  testLogger,
  type TestOrganization,
} from "@imprint/runtime/testing";
import type { PublishingConfig } from "../src/config.js";
import { pageMoveConsumer } from "../src/consumers/content-events.js";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/**
 * Automatic redirects converge whatever the delivery: random renames run on the real content
 * service; their `revision.created` events are then fed to publishing's page-move handler shuffled,
 * duplicated (republished under new ids) and with some held back to the end, from the redirects
 * the site had before them, and the site's redirects must end as the running consumer (in order,
 * through NATS) left them.
 */
let harness: PublishingHarness;
let org: TestOrganization;
let spaceId: string;
let siteId: string;
let pageIds: string[];
const logger = testLogger("publishing-page-moves-property");
const SLUGS = ["alpha", "beta", "gamma", "delta", "epsilon"];

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org, { title: "Moving" })).id;
  pageIds = [];
  for (const title of ["Alpha", "Beta", "Gamma"]) pageIds.push(await createPage(harness, org.owner.caller, { spaceId }, { title, markdown: `${title}.` }));
  siteId = (
    await harness.sites.createSite({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      type: "",
      title: "Moving",
      visibility: "",
      spaceIds: [spaceId],
    })
  ).site!.id;
  await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId });
  await eventually(() => harness.published.getPublishedSpace({ spaceId, knownRevisionId: "" }).catch(() => null), 10_000);
});
afterAll(() => harness?.stop());

const MAX_EVENTS = 8;
const handler = () =>
  pageMoveConsumer({ clock: () => new Date(), published: harness.published }, { REVISION_EVENTS_CONSUMER: "property-page-moves" } as PublishingConfig).handler;

/** The site's redirects as sources and where they lead (ids and times differ between deliveries). */
async function redirectsOf(): Promise<string[]> {
  const rows = await harness.publishing.orm.em
    .fork()
    .execute<{ source: string; destination_page_id: string; automatic: boolean }[]>(
      `select source, destination_page_id, automatic from site_redirects where site_id = ? order by source`,
      [siteId],
    );
  return rows.map((row) => `${row.source} -> ${row.destination_page_id} (${row.automatic ? "automatic" : "person"})`);
}

describe("automatic redirects, whatever the delivery", () => {
  it("end as in-order delivery leaves them", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ page: fc.nat({ max: 2 }), slug: fc.constantFrom(...SLUGS) }), { minLength: 1, maxLength: MAX_EVENTS }),
        fc.array(deliveryPlans(MAX_EVENTS), { minLength: 1, maxLength: 3 }),
        async (renames, plans) => {
          const em = harness.publishing.orm.em.fork();
          const before = await em.execute(`select * from site_redirects where site_id = ?`, [siteId]);
          const since = new Date();
          let committed = 0;
          for (const rename of renames) {
            try {
              await createRevision(harness, org.owner.caller, { spaceId }, (draftId) =>
                harness.editing.updatePage({ caller: org.owner.caller, draftId, page: pageUpdate({ pageId: pageIds[rename.page]!, slug: rename.slug }) }),
              );
              committed += 1;
            } catch (error) {
              // A slug a sibling holds is refused by content: nothing moved.
              if (!(error instanceof AppError) || !["invalid_argument", "conflict", "failed_precondition", "already_exists"].includes(error.code)) throw error;
            }
          }
          const events: EventEnvelope[] = await eventually(async () => {
            const found = (await readEvents("content", { since, payload: { spaceId } })).filter((event) => event.type === "revision.created");
            return found.length === committed ? found : undefined;
          });
          // In order: the running consumer, through NATS (done once it recorded every event as processed).
          const ids = events.map((event) => event.id);
          await eventually(async () => {
            const [row] = await em.execute<{ count: string }[]>(`select count(*) as count from processed_events where event_id = any(?::uuid[])`, [
              `{${ids.join(",")}}`,
            ]);
            return Number(row?.count ?? 0) === ids.length;
          }, 15_000);
          const inOrder = await redirectsOf();
          for (const plan of plans) {
            // Back to the redirects before the renames, then the mixed delivery.
            await em.execute(`delete from site_redirects where site_id = ?`, [siteId]);
            await em.execute(`insert into site_redirects select * from json_populate_recordset(null::site_redirects, ?::json)`, [JSON.stringify(before)]);
            for (const event of deliverInPlan(events, plan, republished)) {
              await harness.publishing.orm.em.fork().transactional((tx) => handler()(event, { em: tx, attempt: 1, logger }));
            }
            expect(await redirectsOf()).toEqual(inOrder);
          }
        },
      ),
      { numRuns: 12, endOnFailure: true },
    );
    // The renames did move pages: the site holds redirects from their old paths.
    expect((await redirectsOf()).some((redirect) => redirect.endsWith("(automatic)"))).toBe(true);
  });
});
