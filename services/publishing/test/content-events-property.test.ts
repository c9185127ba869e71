import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransferSpaceRequest } from "@imprint/proto/content/v1/spaces";
import { AppError } from "@imprint/runtime";
import {
  createCollection,
  createMember,
  createOrganization,
  createSpace,
  eventually,
  readEvents,
  testLogger,
  type TestOrganization,
  deliverInPlan,
  deliveryPlans,
  republished,
} from "@imprint/runtime/testing";
import type { PublishingConfig } from "../src/config.js";
import { contentEventConsumers } from "../src/consumers/content-events.js";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/**
 * Publishing follows a space's deletions, restorations and transfers whatever the delivery: random
 * ones run on the real content service; content's events of them (from the stream) are then fed
 * to publishing's space-events handler shuffled, duplicated and with some held back to the end,
 * from the state before them, and the space's site-spaces must end as in-order delivery (the
 * running consumer, through NATS) leaves them.
 */
let harness: PublishingHarness;
let home: TestOrganization;
let away: TestOrganization;
const logger = testLogger("publishing-content-events-property");
const spaceHandler = contentEventConsumers({ clock: () => new Date() }, { SPACE_EVENTS_CONSUMER: "property-space" } as PublishingConfig)[0]!.handler;
const LIFECYCLE_EVENTS = new Set(["space.deleted", "space.restored", "space.transferred"]);

beforeAll(async () => {
  harness = await startPublishingHarness();
  home = await createOrganization(harness);
  away = await createOrganization(harness);
  // Transfers need an admin of both organizations.
  await createMember(harness, away.organizationId, { email: home.owner.email, role: "admin" });
});
afterAll(() => harness?.stop());

const MAX_EVENTS = 16;
const delivery = deliveryPlans(MAX_EVENTS);

type Operation = "delete" | "restore" | "away" | "home";

/** What publishing holds of the space: its site-spaces, by site, hidden or shown. */
const siteSpacesOf = async (spaceId: string) =>
  harness.publishing.orm.em
    .fork()
    .execute<{ site_id: string; space_deleted: boolean }[]>(`select site_id, space_deleted from site_spaces where space_id = ? order by site_id`, [spaceId]);

describe("publishing's copy of a space's lifecycle", () => {
  it("ends as in-order delivery leaves it under any order, duplication and delay", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Operation>("delete", "restore", "away", "home"), { minLength: 1, maxLength: 8 }),
        fc.array(delivery, { minLength: 2, maxLength: 2 }),
        async (operations, plans) => {
          const since = new Date();
          const space = await createSpace(harness, home);
          const caller = home.owner.caller;
          for (const title of ["First", "Second"]) {
            await harness.sites.createSite({ caller, organizationId: home.organizationId, type: "", title, visibility: "", spaceIds: [space.id] });
          }
          const em = harness.publishing.orm.em.fork();
          const [snapshot] = await em.execute<{ rows: unknown[] }[]>(`select coalesce(json_agg(s), '[]'::json) as rows from site_spaces s where space_id = ?`, [
            space.id,
          ]);
          const before = snapshot!.rows;
          // Content's answers hide whether anything changed: the test keeps the space's state to count the events.
          let changes = 0;
          let deleted = false;
          for (const operation of operations) {
            try {
              if (operation === "delete") {
                await harness.spaces.deleteSpace({ caller, spaceId: space.id });
                if (!deleted) changes += 1;
                deleted = true;
              }
              if (operation === "restore") {
                await harness.spaces.restoreSpace({ caller, spaceId: space.id });
                if (deleted) changes += 1;
                deleted = false;
              }
              if (operation === "away" || operation === "home") {
                const organizationId = operation === "away" ? away.organizationId : home.organizationId;
                await harness.spaces.transferSpace(TransferSpaceRequest.fromPartial({ caller, spaceId: space.id, organizationId }));
                changes += 1;
              }
            } catch (error) {
              // Refused by content (a transfer of a deleted space, or to where it is): nothing happens.
              if (!(error instanceof AppError) || !["failed_precondition", "not_found"].includes(error.code)) throw error;
            }
          }
          const events = await eventually(async () => {
            const found = (await readEvents("content", { since, payload: { spaceId: space.id } })).filter((event) => LIFECYCLE_EVENTS.has(event.type));
            expect(found.length).toBe(changes);
            return found;
          });
          // In order: the running consumer, through NATS (done once its last deletion or restoration and the site-spaces' removal show).
          const lastVersion = events.filter((event) => event.type !== "space.transferred").at(-1)?.payload.lifecycleVersion ?? 0;
          if (events.some((event) => event.type === "space.transferred")) await eventually(async () => (await siteSpacesOf(space.id)).length === 0);
          await eventually(async () => {
            const [row] = await em.execute<{ version: number }[]>(`select version from space_lifecycles where space_id = ?`, [space.id]);
            return (row?.version ?? 0) === lastVersion;
          });
          const inOrder = await siteSpacesOf(space.id);
          for (const plan of plans) {
            // Back to the state before the operations, then the mixed delivery.
            await em.execute(`delete from site_spaces where space_id = ?`, [space.id]);
            await em.execute(`insert into site_spaces select * from json_populate_recordset(null::site_spaces, ?::json)`, [JSON.stringify(before)]);
            await em.execute(`delete from space_lifecycles where space_id = ?`, [space.id]);
            for (const event of deliverInPlan(events, plan, republished)) {
              await harness.publishing.orm.em.fork().transactional((tx) => spaceHandler(event, { em: tx, attempt: 1, logger }));
            }
            expect(await siteSpacesOf(space.id)).toEqual(inOrder);
          }
        },
      ),
      { numRuns: 20, endOnFailure: true },
    );
  });

  it("takes the spaces of a collection transferred to another organization off the former one's sites", async () => {
    const caller = home.owner.caller;
    const collection = await createCollection(harness, home);
    const space = await createSpace(harness, home, { parentId: collection.id });
    await harness.sites.createSite({ caller, organizationId: home.organizationId, type: "", title: "Docs", visibility: "", spaceIds: [space.id] });
    expect(await siteSpacesOf(space.id)).toHaveLength(1);
    await harness.collections.transferCollection({ caller, collectionId: collection.id, organizationId: away.organizationId });
    await eventually(async () => (await siteSpacesOf(space.id)).length === 0);
  });
});
