import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeRequestStatus, ListChangeRequestsRequest } from "@imprint/proto/collaboration/v1/change_requests";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { TransferSpaceRequest } from "@imprint/proto/content/v1/spaces";
import { AppError, createUnitOfWork } from "@imprint/runtime";
import {
  createChangeRequest,
  createCollection,
  createRevision,
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
import { keptChangeRequestId } from "../src/use-cases/open-kept-change-request.js";
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

describe("git_sync.conflict_kept", () => {
  it("opens one change request at the kept revision, whatever the redeliveries, taking over a branch content already made; none for a user who may not edit", async () => {
    const space = await createSpace(harness, home);
    const edit = (title: string) =>
      createRevision(harness, home.owner.caller, { spaceId: space.id }, (draftId) =>
        harness.editing.createPage({ caller: home.owner.caller, draftId, page: CreatePageInput.fromPartial({ title }) }),
      );
    const base = await edit("Base");
    const kept = await edit("Kept");
    const id = keptChangeRequestId(kept);
    // A first delivery whose transaction failed after content made the branch; another change request took the next number meanwhile.
    await harness.branches.createBranch({ caller: home.owner.caller, spaceId: space.id, changeRequestId: id, number: 1, headRevisionId: kept });
    expect((await createChangeRequest(harness, home.owner.caller, space.id)).number).toBe(2);

    const deps = {
      clock: () => new Date(),
      content: { spaces: harness.spaces, branches: harness.branches, revisions: harness.revisions, editing: harness.editing },
      unitOfWork: createUnitOfWork({ notify: () => undefined }),
    };
    const handler = contentEventConsumers(deps, { ...config, GIT_SYNC_EVENTS_CONSUMER: "property-git-sync" })[4]!.handler;
    const event = (userId: string) => ({
      id: randomUUID(),
      type: "git_sync.conflict_kept",
      subject: "imprint.content.v1.git_sync.conflict_kept",
      occurredAt: new Date().toISOString(),
      organizationId: home.organizationId,
      actor: { userId },
      payload: {
        spaceId: space.id,
        revisionId: kept,
        baseRevisionId: base,
        winner: "git",
        commit: "1a2b3c4d5e6f",
        conflicts: ['"API": both sides changed the same lines of the text'],
      },
    });
    const deliver = (envelope: ReturnType<typeof event>) =>
      harness.collaboration.orm.em.fork().transactional((tx) => handler(envelope, { em: tx, attempt: 1, logger }));
    await deliver(event(home.owner.userId));
    await deliver(event(home.owner.userId));

    const listed = async () =>
      (await harness.changeRequests.listChangeRequests(ListChangeRequestsRequest.fromPartial({ caller: home.owner.caller, spaceId: space.id }))).changeRequests;
    const opened = (await listed()).filter((changeRequest) => changeRequest.id === id);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      number: 1,
      status: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN,
      subject: "Git Sync: Imprint's version of what conflicted with 1a2b3c4",
      revisionId: kept,
      initialRevisionId: base,
      createdBy: { id: home.owner.userId },
    });
    expect(opened[0]!.description).toContain('- "API": both sides changed the same lines of the text');
    expect((await createChangeRequest(harness, home.owner.caller, space.id)).number).toBe(3);

    // The user who connected the space became a reader: nothing opens, nothing fails.
    const reader = await createMember(harness, home.organizationId, { role: "read" });
    const another = await edit("Another");
    await deliver({ ...event(reader.userId), payload: { ...event(reader.userId).payload, revisionId: another } });
    expect((await listed()).map((item) => item.id)).not.toContain(keptChangeRequestId(another));
  });
});
