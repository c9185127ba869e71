import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransferSpaceRequest } from "@imprint/proto/content/v1/spaces";
import { AppError } from "@imprint/runtime";
import {
  createChangeRequest,
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
import type { CollaborationConfig } from "../src/config.js";
import { contentEventConsumers } from "../src/consumers/content-events.js";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/**
 * Collaboration follows a space's transfers whatever the delivery: random transfers between two
 * organizations run on the real content service; content's events of them (from the stream) are
 * then fed to collaboration's space-events handler shuffled, duplicated and with some held back to
 * the end, from the state before them, and the space's change requests must name the organization
 * content says the space is in, as the running consumer (through NATS) also reaches.
 */
let harness: CollaborationHarness;
let home: TestOrganization;
let away: TestOrganization;
const logger = testLogger("collaboration-content-events-property");
const config = {
  SPACE_EVENTS_CONSUMER: "property-space",
  COLLECTION_EVENTS_CONSUMER: "property-collection",
  BRANCH_EVENTS_CONSUMER: "property-branch",
  REVISION_EVENTS_CONSUMER: "property-revision",
} as CollaborationConfig;
// The space and collection consumers use the clock only.
const consumerDeps = { clock: () => new Date() } as Parameters<typeof contentEventConsumers>[0];
const spaceHandler = contentEventConsumers(consumerDeps, config)[0]!.handler;

beforeAll(async () => {
  harness = await startCollaborationHarness();
  home = await createOrganization(harness);
  away = await createOrganization(harness);
  // Transfers need an admin of both organizations.
  await createMember(harness, away.organizationId, { email: home.owner.email, role: "admin" });
});
afterAll(() => harness?.stop());

const MAX_EVENTS = 16;
const delivery = deliveryPlans(MAX_EVENTS);

const organizationsOfRows = async (spaceId: string) =>
  (
    await harness.collaboration.orm.em
      .fork()
      .execute<{ organization_id: string }[]>(`select distinct organization_id from change_requests where space_id = ?`, [spaceId])
  ).map((row) => row.organization_id);

describe("collaboration's copy of a space's organization", () => {
  it("ends where content's space is under any order, duplication and delay of its transfers", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.array(delivery, { minLength: 2, maxLength: 2 }), async (moves, plans) => {
        const since = new Date();
        const space = await createSpace(harness, home);
        await createChangeRequest(harness, home.owner.caller, space.id);
        let at = home.organizationId;
        let transfers = 0;
        for (const toAway of moves) {
          const target = toAway ? away.organizationId : home.organizationId;
          try {
            await harness.spaces.transferSpace(TransferSpaceRequest.fromPartial({ caller: home.owner.caller, spaceId: space.id, organizationId: target }));
            at = target;
            transfers += 1;
          } catch (error) {
            // Already there: content refuses, nothing happens.
            if (!(error instanceof AppError) || error.code !== "failed_precondition") throw error;
          }
        }
        const events = await eventually(async () => {
          const found = (await readEvents("content", { since, payload: { spaceId: space.id } })).filter((event) => event.type === "space.transferred");
          expect(found.length).toBe(transfers);
          return found;
        });
        // The running service follows content through NATS.
        await eventually(async () => expect(await organizationsOfRows(space.id)).toEqual([at]));
        for (const plan of plans) {
          // Back to the state before the transfers, then the mixed delivery.
          const em = harness.collaboration.orm.em.fork();
          await em.execute(`update change_requests set organization_id = ? where space_id = ?`, [home.organizationId, space.id]);
          await em.execute(`update space_states set lifecycle_version = 0 where space_id = ?`, [space.id]);
          for (const event of deliverInPlan(events, plan, republished)) {
            await harness.collaboration.orm.em.fork().transactional((tx) => spaceHandler(event, { em: tx, attempt: 1, logger }));
          }
          expect(await organizationsOfRows(space.id)).toEqual([at]);
        }
      }),
      { numRuns: 20, endOnFailure: true },
    );
  });

  it("follows the spaces of a transferred collection, in order with their own transfers", async () => {
    const collection = await createCollection(harness, home);
    const space = await createSpace(harness, home, { parentId: collection.id });
    await createChangeRequest(harness, home.owner.caller, space.id);
    await harness.collections.transferCollection({ caller: home.owner.caller, collectionId: collection.id, organizationId: away.organizationId });
    await eventually(async () => expect(await organizationsOfRows(space.id)).toEqual([away.organizationId]));
    // Back home on its own: the later transfer wins whatever order the two come in.
    await harness.spaces.transferSpace(TransferSpaceRequest.fromPartial({ caller: home.owner.caller, spaceId: space.id, organizationId: home.organizationId }));
    await eventually(async () => expect(await organizationsOfRows(space.id)).toEqual([home.organizationId]));
    const [moved] = (await readEvents("content", { organizationId: away.organizationId, payload: { collectionId: collection.id } })).filter(
      (event) => event.type === "collection.transferred",
    );
    expect(moved!.payload.spaceLifecycleVersions).toEqual({ [space.id]: 1 });
    const collectionHandler = contentEventConsumers(consumerDeps, config)[1]!.handler;
    await harness.collaboration.orm.em.fork().transactional((tx) => collectionHandler({ ...moved!, id: randomUUID() }, { em: tx, attempt: 1, logger }));
    expect(await organizationsOfRows(space.id)).toEqual([home.organizationId]);
  });
});
