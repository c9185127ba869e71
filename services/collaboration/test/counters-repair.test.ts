import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostCommentRequest } from "@imprint/proto/collaboration/v1/comments";
import { createChangeRequest, createOrganization, createSpace, eventually, type TestOrganization, runNodeScriptJson } from "@imprint/runtime/testing";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/**
 * The repair of content's copy of the spaces' counters: collaboration announces them again as
 * they are (AnnounceSpaceCounters, `npm run admin -- reconcile space-counters`), with a new
 * version, and content's copy, changed by hand, is right again.
 */
let harness: CollaborationHarness;
let org: TestOrganization;
beforeAll(async () => {
  harness = await startCollaborationHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const ADMIN_CLI = fileURLToPath(new URL("../../identity/dist/cli/admin.js", import.meta.url));

/** Runs the compiled admin CLI as an operator does; its one line of JSON. */
const adminCli = (args: string[], env: Record<string, string>) => runNodeScriptJson<Record<string, unknown>>(ADMIN_CLI, args, { env, timeoutMs: 60_000 });

/** Content's copy of the space's counters. */
async function countersInContent(spaceId: string): Promise<{ change_requests: number; change_requests_open: number; comments: number }> {
  const [row] = await harness.content.orm.em
    .fork()
    .execute<{ change_requests: number; change_requests_open: number; comments: number }[]>(
      `select change_requests, change_requests_open, comments from spaces where id = ?`,
      [spaceId],
    );
  return row!;
}

describe("repair of the spaces' counters in content", () => {
  it("announces a space's counters again, and content's corrupted copy follows", async () => {
    const space = await createSpace(harness, org);
    await createChangeRequest(harness, org.owner.caller, space.id);
    await harness.comments.postComment(
      PostCommentRequest.fromPartial({ caller: org.owner.caller, scope: { spaceId: space.id, changeRequestId: "" }, markdown: "Looks good" }),
    );
    const right = { change_requests: 1, change_requests_open: 1, comments: 1 };
    await eventually(async () => expect(await countersInContent(space.id)).toEqual(right));

    // Corrupt content's copy (as a lost or misapplied event would).
    await harness.content.orm.em.fork().execute(`update spaces set change_requests = 42, change_requests_open = 0, comments = 7 where id = ?`, [space.id]);
    expect(await adminCli(["reconcile", "space-counters", "--space", space.id], { COLLABORATION_GRPC_ADDRESS: harness.collaborationAddress })).toEqual({
      spaces: 1,
    });
    await eventually(async () => expect(await countersInContent(space.id)).toEqual(right));
  });

  it("announces every space's counters when none is named", async () => {
    const space = await createSpace(harness, org);
    await createChangeRequest(harness, org.owner.caller, space.id);
    await eventually(async () => expect((await countersInContent(space.id)).change_requests).toBe(1));
    await harness.content.orm.em.fork().execute(`update spaces set change_requests = 0 where id = ?`, [space.id]);
    const { spaces } = await harness.changeRequests.announceSpaceCounters({ spaceId: "" });
    expect(spaces).toBeGreaterThanOrEqual(1);
    await eventually(async () => expect((await countersInContent(space.id)).change_requests).toBe(1));
  });
});
