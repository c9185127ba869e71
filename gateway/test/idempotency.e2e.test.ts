import { createHash, randomUUID } from "node:crypto";
import { Kvm } from "@nats-io/kv";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { patient, testNats } from "@imprint/runtime/testing";
import { IDEMPOTENCY_BUCKET, type IdempotencyRecord } from "../src/idempotency-store.js";
import { idempotencyRecordId, leaseFor } from "../src/middleware/idempotency.js";
import { createMember, createOrganization, type TestOrganization } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  org = await createOrganization(stack);
});

const spacesPath = () => `/v1/orgs/${org.organizationId}/spaces`;
const createSpace = (key: string | undefined, title: string, token = org.owner.token) =>
  call(stack, "POST", spacesPath(), { token, json: { title }, headers: key === undefined ? {} : { "idempotency-key": key } });

/** The organization's spaces titled `title`. */
async function spacesTitled(title: string): Promise<string[]> {
  const { data } = await org.owner.api.orgs.listSpacesInOrganizationById(org.organizationId);
  return data.items.filter((space) => space.title === title).map((space) => space.id);
}

const replayed = (response: CallResult) => response.headers.get("idempotent-replayed");

describe("Idempotency-Key on writes", () => {
  it("answers a retry with the first answer (status, body, Location) and creates nothing more", async () => {
    const key = randomUUID();
    const first = await createSpace(key, "Once");
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    const again = await createSpace(key, "Once");
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(replayed(again)).toBe("true");
    expect(await spacesTitled("Once")).toEqual([first.body.id]);
  });

  it("keeps the records in NATS, where every gateway replica finds them", async () => {
    const key = randomUUID();
    expect((await createSpace(key, "Shared")).status).toBe(201);
    const bucket = await new Kvm(await testNats()).open(IDEMPOTENCY_BUCKET);
    const status = await bucket.status();
    expect(status.values).toBeGreaterThan(0);
    expect(status.ttl).toBe(24 * 60 * 60 * 1000);
  });

  it("refuses the same key with another body (422), and runs nothing", async () => {
    const key = randomUUID();
    expect((await createSpace(key, "First body")).status).toBe(201);
    const other = await createSpace(key, "Second body");
    expect(other.status).toBe(422);
    expect(other.body.error.message).toMatch(/Idempotency-Key: this key was used with another request body/);
    expect(await spacesTitled("Second body")).toEqual([]);
  });

  it("scopes a key to the token: another token's request with it runs", async () => {
    const key = randomUUID();
    const admin = await createMember(stack, org, { role: "admin" });
    const mine = await createSpace(key, "Scoped");
    const theirs = await createSpace(key, "Scoped", admin.token);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(replayed(theirs)).toBeNull();
    expect((await spacesTitled("Scoped")).sort()).toEqual([mine.body.id, theirs.body.id].sort());
  });

  it("scopes a key to the path: the same key on another route runs", async () => {
    const key = randomUUID();
    const space = await createSpace(key, "Path one");
    const renamed = await call(stack, "PATCH", `/v1/spaces/${space.body.id}`, {
      token: org.owner.token,
      json: { title: "Path two" },
      headers: { "idempotency-key": key },
    });
    expect(renamed.status).toBe(200);
    expect(replayed(renamed)).toBeNull();
    expect(renamed.body.title).toBe("Path two");
  });

  it("answers two requests sent at once with one key as one: the other is 409 or the same answer", async () => {
    const key = randomUUID();
    const answers = await Promise.all([createSpace(key, "Concurrent"), createSpace(key, "Concurrent")]);
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(created.length + refused.length).toBe(2);
    expect(created.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer.body.error.message).toBe("a request with this Idempotency-Key is in progress");
    expect(new Set(created.map((answer) => String(answer.body.id))).size).toBe(1);
    expect(await spacesTitled("Concurrent")).toEqual([created[0]!.body.id]);
  });

  it("keeps client errors (4xx) and replays them", async () => {
    const key = randomUUID();
    const path = `/v1/orgs/${randomUUID()}/spaces`;
    const first = await call(stack, "POST", path, { token: org.owner.token, json: { title: "Nowhere" }, headers: { "idempotency-key": key } });
    expect(first.status).toBe(404);
    const again = await call(stack, "POST", path, { token: org.owner.token, json: { title: "Nowhere" }, headers: { "idempotency-key": key } });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(first.body);
    expect(replayed(again)).toBe("true");
  });

  it("replays a DELETE's answer without a body", async () => {
    const key = randomUUID();
    const space = await createSpace(undefined, "Doomed");
    const headers = { "idempotency-key": key };
    const first = await call(stack, "DELETE", `/v1/spaces/${space.body.id}`, { token: org.owner.token, headers });
    const again = await call(stack, "DELETE", `/v1/spaces/${space.body.id}`, { token: org.owner.token, headers });
    expect([first.status, again.status]).toEqual([204, 204]);
    expect(replayed(again)).toBe("true");
    expect(again.body).toBeUndefined();
  });

  it("refuses a key that is empty, too long or not printable ASCII (400)", async () => {
    for (const key of ["", "k".repeat(256), "clé"]) {
      const response = await createSpace(key, "Bad key");
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe("Idempotency-Key: must be 1 to 255 printable ASCII characters");
    }
    expect((await createSpace("k".repeat(255), "Long key")).status).toBe(201);
    expect(await spacesTitled("Bad key")).toEqual([]);
  });

  it("changes nothing without the header: each request runs", async () => {
    expect((await createSpace(undefined, "Twice")).status).toBe(201);
    expect((await createSpace(undefined, "Twice")).status).toBe(201);
    expect(await spacesTitled("Twice")).toHaveLength(2);
  });

  it("ignores the header on GET", async () => {
    const headers = { "idempotency-key": randomUUID() };
    const first = await call(stack, "GET", spacesPath(), { token: org.owner.token, headers });
    expect((await createSpace(undefined, "Seen")).status).toBe(201);
    const second = await call(stack, "GET", spacesPath(), { token: org.owner.token, headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(replayed(second)).toBeNull();
    expect(second.body.items.length).toBe(first.body.items.length + 1);
  });
});

describe("Idempotency-Key when the gateway running the first request stopped mid-request", () => {
  // The stack's gateway runs with UPSTREAM_TIMEOUT_MS = patient(10 s).
  const lease = leaseFor(patient(10_000));
  /** Leaves in the bucket what a gateway running a space creation with `key` leaves, last renewed at `renewedAt`. */
  async function leaveRunning(key: string, title: string, renewedAt: number): Promise<void> {
    const bodyHash = createHash("sha256").update(JSON.stringify({ title })).digest("hex");
    const record: IdempotencyRecord = { state: "running", bodyHash, startedAt: renewedAt - 60_000, renewedAt };
    const bucket = await new Kvm(await testNats()).open(IDEMPOTENCY_BUCKET);
    await bucket.put(idempotencyRecordId(`Bearer ${org.owner.token}`, "POST", spacesPath(), key), JSON.stringify(record));
  }

  it("answers a retry 409 with Retry-After while the record is renewed, and runs nothing", async () => {
    const key = randomUUID();
    await leaveRunning(key, "Still running", Date.now());
    const retry = await createSpace(key, "Still running");
    expect(retry.status).toBe(409);
    expect(retry.body.error.message).toBe("a request with this Idempotency-Key is in progress");
    const retryAfter = Number(retry.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(lease.abandonedAfterMs / 1000));
    expect(await spacesTitled("Still running")).toEqual([]);
  });

  it("lets a retry take over a record nobody renewed within the abandon limit: it runs, once", async () => {
    const key = randomUUID();
    await leaveRunning(key, "Taken over", Date.now() - lease.abandonedAfterMs - 1_000);
    const retry = await createSpace(key, "Taken over");
    expect(retry.status).toBe(201);
    const again = await createSpace(key, "Taken over");
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe("true");
    expect(await spacesTitled("Taken over")).toEqual([retry.body.id]);
  });
});

describe("Idempotency-Key when the write fails with a server error", () => {
  it("keeps no 5xx answer: a retry after the outage runs again", async () => {
    await stack.stopUpstream("content");
    const key = randomUUID();
    const first = await createSpace(key, "Outage");
    expect(first.status).toBe(503);
    const again = await createSpace(key, "Outage");
    expect(again.status).toBe(503);
    expect(replayed(again)).toBeNull();
  });
});
