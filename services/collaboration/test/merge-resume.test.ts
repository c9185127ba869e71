import { randomUUID } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChangeRequestStatus } from "@imprint/proto/collaboration/v1/change_requests";
import { loadContentConfig, startContentService } from "@imprint/content";
import { loadIdentityConfig, startIdentityService } from "@imprint/identity";
import type { RunningService } from "@imprint/runtime";
import {
  createChangeRequest,
  createOrganization,
  createPage,
  createSpace,
  eventually,
  failure,
  setPageMarkdown,
  startServices,
  testNats,
  type TestOrganization,
  type TestServices,
} from "@imprint/runtime/testing";
import { loadCollaborationConfig } from "../src/config.js";
import { startCollaborationService } from "../src/service.js";

/**
 * An interrupted merge is settled within seconds once collaboration and content are both up: the
 * intent collaboration commits before asking content lets a restarted process (or any replica)
 * record the merge content did, or drop the one it did not, without waiting for content's
 * `branch.merged` event (which a crash can leave unacknowledged for the consumer's 30 s ack wait).
 */

const CONTENT_STREAM = "IMPRINT_CONTENT";
/** The branch events' durable consumer, named here so that the restarted process takes it over. */
const BRANCH_CONSUMER = `collaboration-branches-${randomUUID().slice(0, 8)}`;
const collaborationEnv = { BRANCH_EVENTS_CONSUMER: BRANCH_CONSUMER, MERGE_RESUME_INTERVAL_MS: "200" };

let services: TestServices;
let restarted: TestServices | undefined;
let org: TestOrganization;
let spaceId: string;
let pageId: string;

const collaboration = (): RunningService => (restarted ?? services).service("collaboration");
const pendingMerges = async (changeRequestId: string) =>
  (await collaboration().orm.em.fork().getConnection().execute(`select change_request_id from pending_merges where change_request_id = ?`, [changeRequestId]))
    .length;

beforeAll(async () => {
  services = await startServices([
    { name: "identity", config: loadIdentityConfig, start: startIdentityService },
    { name: "content", config: loadContentConfig, start: startContentService },
    { name: "collaboration", config: loadCollaborationConfig, start: startCollaborationService, env: collaborationEnv },
  ]);
  org = await createOrganization(services.clients);
  spaceId = (await createSpace(services.clients, org)).id;
  pageId = await createPage(services.clients, org.owner.caller, { spaceId }, { title: "Guide", markdown: "# Guide\n\nFirst.\n" });
}, 120_000);
afterAll(async () => {
  await restarted?.stop();
  await services?.stop();
});

/** An open change request with an edit on its branch. */
async function editedChangeRequest(): Promise<string> {
  const { id } = await createChangeRequest((restarted ?? services).clients, org.owner.caller, spaceId);
  await setPageMarkdown(services.clients, org.owner.caller, { spaceId, changeRequestId: id }, pageId, `# Guide\n\nEdited ${id}.\n`);
  return id;
}

describe("an interrupted merge", () => {
  it("content did, collaboration stopped before recording it: recorded within seconds of the restart, without content's event", async () => {
    const id = await editedChangeRequest();
    // Collaboration committed its intent, then stopped before content answered.
    await collaboration()
      .orm.em.fork()
      .getConnection()
      .execute(`insert into pending_merges (change_request_id, space_id, organization_id, user_id, token_id, requested_at) values (?, ?, ?, ?, null, now())`, [
        id,
        spaceId,
        org.organizationId,
        org.owner.userId,
      ]);
    await services.stopTarget("collaboration");
    const merged = await services.clients.branches.mergeBranch({ caller: org.owner.caller, spaceId, changeRequestId: id });
    // The stopped process had received content's branch.merged and never acknowledged it: JetStream
    // holds it for the consumer's ack wait (30 s) before delivering it again.
    const consumer = await jetstream(await testNats()).consumers.get(CONTENT_STREAM, BRANCH_CONSUMER);
    const held = await consumer.next({ expires: 10_000 });
    expect(held?.subject).toBe("imprint.content.v1.branch.merged");

    restarted = await startServices([
      {
        name: "collaboration",
        config: loadCollaborationConfig,
        start: startCollaborationService,
        database: services.databaseUrl("collaboration"),
        env: { ...collaborationEnv, CONTENT_GRPC_ADDRESS: services.address("content"), IDENTITY_GRPC_ADDRESS: services.address("identity") },
      },
    ]);
    const changeRequests = restarted.clients.changeRequests;
    const recorded = await eventually(async () => {
      const { changeRequest } = await changeRequests.getChangeRequest({ caller: org.owner.caller, spaceId, changeRequestId: id });
      return changeRequest?.status === ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED && changeRequest;
    });
    expect(recorded.mergedRevisionId).toBe(merged.revisionId);
    expect(await pendingMerges(id)).toBe(0);
    // The resumer did it: content's event is still held, never delivered again.
    const info = await (await jetstreamManager(await testNats())).consumers.info(CONTENT_STREAM, BRANCH_CONSUMER);
    expect(info.num_ack_pending).toBe(1);
    expect(info.num_redelivered).toBe(0);
  });

  it("content did not: the intent is dropped, the change request stays open", async () => {
    const id = await editedChangeRequest();
    // An intent older than any merge call in flight, whose branch content never merged.
    await collaboration()
      .orm.em.fork()
      .getConnection()
      .execute(
        `insert into pending_merges (change_request_id, space_id, organization_id, user_id, token_id, requested_at) values (?, ?, ?, ?, null, now() - interval '1 minute')`,
        [id, spaceId, org.organizationId, org.owner.userId],
      );
    await eventually(async () => (await pendingMerges(id)) === 0);
    const { changeRequest } = await (restarted ?? services).clients.changeRequests.getChangeRequest({ caller: org.owner.caller, spaceId, changeRequestId: id });
    expect(changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN);
    const { branches } = await services.clients.branches.batchGetBranches({ caller: org.owner.caller, spaceId, changeRequestIds: [id] });
    expect(branches[0]?.mergedRevisionId).toBe("");
  });

  it("content did, collaboration's database failed only its record: answered the merge, recorded once the database answers", async () => {
    const id = await editedChangeRequest();
    const sql = (text: string) => collaboration().orm.em.fork().getConnection().execute(text);
    // The database refuses to record this merge, as one going down right after content's commit would.
    await sql(`create function refuse_merge_record() returns trigger language plpgsql as $$
      begin raise exception 'the database is shutting down' using errcode = '57P03'; end $$`);
    await sql(`create trigger refuse_merge_record before update on change_requests for each row
      when (new.id = '${id}' and new.status = 'merged') execute function refuse_merge_record()`);
    let revisionId: string;
    try {
      const answer = await (restarted ?? services).clients.changeRequests.mergeChangeRequest({ caller: org.owner.caller, spaceId, changeRequestId: id });
      expect(answer.changeRequest?.status).toBe(ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED);
      const { branches } = await services.clients.branches.batchGetBranches({ caller: org.owner.caller, spaceId, changeRequestIds: [id] });
      expect(answer.revisionId).toBe(branches[0]?.mergedRevisionId);
      expect(await pendingMerges(id)).toBe(1);
      revisionId = answer.revisionId;
    } finally {
      await sql(`drop trigger refuse_merge_record on change_requests`);
      await sql(`drop function refuse_merge_record()`);
    }
    const recorded = await eventually(async () => {
      const { changeRequest } = await (restarted ?? services).clients.changeRequests.getChangeRequest({
        caller: org.owner.caller,
        spaceId,
        changeRequestId: id,
      });
      return changeRequest?.status === ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED && changeRequest;
    });
    expect(recorded.mergedRevisionId).toBe(revisionId);
    // The resumer's next round, whoever recorded it (the resumer or content's branch.merged).
    await eventually(async () => (await pendingMerges(id)) === 0);
  });

  it("with content unreachable: answered unavailable, nothing changed", async () => {
    const id = await editedChangeRequest();
    await services.stopTarget("content");
    const call = restarted!.clients.changeRequests.mergeChangeRequest({ caller: org.owner.caller, spaceId, changeRequestId: id });
    expect(await failure(call)).toMatchObject({ code: "unavailable" });
    const rows = await collaboration().orm.em.fork().getConnection().execute(`select status from change_requests where id = ?`, [id]);
    expect(rows).toEqual([{ status: "open" }]);
    expect(await pendingMerges(id)).toBe(0);
  });
});
