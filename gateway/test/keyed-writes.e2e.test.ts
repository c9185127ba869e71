import { randomUUID } from "node:crypto";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { createChangeRequest, createPage, eventually, LostAnswers, startTcpProxy, type TcpProxy } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Writes whose answer is lost between collaboration's commit and the gateway. The gateway reaches
 * collaboration through two relays (as two copies of it), which lose the answers the test asks
 * them to: the connection is cut where the answer would begin, after the service committed and
 * kept its answer, as a copy killed right then would. A request with an Idempotency-Key is still
 * answered once and writes once; one without a key is not repeated by the gateway.
 */
let stack: TestStack;
let org: TestOrganization;
let spaceId: string;
const lostAnswers = new LostAnswers();
const relays: TcpProxy[] = [];

beforeAll(async () => {
  const collaborationPort = await getFreePort();
  for (let copy = 0; copy < 2; copy++) relays.push(await startTcpProxy({ host: "127.0.0.1", port: collaborationPort }, { lostAnswers }));
  stack = await startStack({
    collaborationEnv: { GRPC_PORT: String(collaborationPort) },
    gatewayEnv: { COLLABORATION_GRPC_ADDRESS: relays.map((relay) => `${relay.host}:${relay.port}`).join(",") },
  });
});
afterAll(async () => {
  await stack?.stop();
  for (const relay of relays) await relay.close();
});
beforeEach(async () => {
  lostAnswers.deliver();
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
});

const commentsPath = () => `/v1/spaces/${spaceId}/comments`;
const postComment = (text: string, key?: string) =>
  call(stack, "POST", commentsPath(), {
    token: org.owner.token,
    json: { body: { markdown: text } },
    headers: key === undefined ? {} : { "idempotency-key": key },
  });

/** The ids of the space's comments whose body reads `text`. */
async function commentsReading(text: string): Promise<string[]> {
  const list = await call(stack, "GET", `${commentsPath()}?format=markdown`, { token: org.owner.token });
  expect(list.status).toBe(200);
  return (list.body.items as { id: string; body: { markdown?: string } }[])
    .filter((comment) => comment.body.markdown?.trim() === text)
    .map((comment) => comment.id);
}

/** Until collaboration answers through the relays again (their connections were cut). */
const reachable = () => eventually(async () => (await call(stack, "GET", commentsPath(), { token: org.owner.token })).status === 200);

describe("a keyed write whose answer is lost after the commit", () => {
  it("is sent again by the gateway and answered once: one comment", async () => {
    const lostBefore = lostAnswers.lost;
    lostAnswers.lose(1);
    const posted = await postComment("Lost once.", randomUUID());
    expect(posted.status).toBe(200);
    expect(lostAnswers.lost).toBe(lostBefore + 1);
    expect(await commentsReading("Lost once.")).toEqual([posted.body.id]);
  });

  it("when every answer is lost, is 503; the client's retry with the key is answered the first write's result", async () => {
    const key = randomUUID();
    lostAnswers.lose(Infinity);
    const first = await postComment("Lost every time.", key);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    lostAnswers.deliver();
    await reachable();

    const retried = await postComment("Lost every time.", key);
    expect(retried.status).toBe(200);
    const comments = await commentsReading("Lost every time.");
    expect(comments).toEqual([retried.body.id]);
    // Now the gateway kept the answer too: another retry is its replay.
    const again = await postComment("Lost every time.", key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(retried.body);
  });

  it("with another body under the same key after a 503, runs as a new write (the keys cover the body)", async () => {
    const key = randomUUID();
    lostAnswers.lose(Infinity);
    expect((await postComment("First body.", key)).status).toBe(503);
    lostAnswers.deliver();
    await reachable();
    const other = await postComment("Second body.", key);
    expect(other.status).toBe(200);
    expect(await commentsReading("Second body.")).toEqual([other.body.id]);
    expect(await commentsReading("First body.")).toHaveLength(1);
  });
});

describe("a keyed merge whose answer is lost", () => {
  it("is sent again by the gateway and answered its merge revision (the kept answer)", async () => {
    const caller = org.owner.caller;
    await createPage(stack.clients, caller, { spaceId }, { title: "Intro", markdown: "Hello." });
    const changeRequest = await createChangeRequest(stack.clients, caller, spaceId, { subject: "More" });
    await createPage(stack.clients, caller, { spaceId, changeRequestId: changeRequest.id }, { title: "More", markdown: "More." });
    const lostBefore = lostAnswers.lost;
    lostAnswers.lose(1);
    const merged = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}/merge`, {
      token: org.owner.token,
      headers: { "idempotency-key": randomUUID() },
    });
    expect(merged.status).toBe(200);
    expect(lostAnswers.lost).toBe(lostBefore + 1);
    const space = await call(stack, "GET", `/v1/spaces/${spaceId}`, { token: org.owner.token });
    expect(space.body.revision).toBe(merged.body.revision);
    const read = await call(stack, "GET", `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}`, { token: org.owner.token });
    expect(read.body).toMatchObject({ status: "merged", revisionMerged: merged.body.revision });
  });
});

describe("a write without a key whose answer is lost", () => {
  it("is not sent again: 503, though it was written", async () => {
    lostAnswers.lose(1);
    const posted = await postComment("Unkeyed.");
    expect(posted.status).toBe(503);
    expect(await commentsReading("Unkeyed.")).toHaveLength(1);
  });
});
