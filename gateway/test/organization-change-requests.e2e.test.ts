import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitEdits, startEditingStack, stopEditingStack, type EditingClient } from "./support/editing.js";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * listChangeRequestsForOrganization end to end: change requests of several spaces listed with
 * every filter GitBook defines, paged, and only those of spaces the caller can read. Every answer
 * is checked against GitBook's OpenAPI.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let editor: TestUser;
/** A space every member reads, one only admins see (no default level), one in a closed collection. */
let openSpace: string;
let closedSpace: string;
let nestedSpace: string;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
});
afterAll(() => stopEditingStack(stack, editing));
beforeEach(async () => {
  org = await createOrganization(stack);
  editor = await createMember(stack, org, { role: "edit" });
  openSpace = (await createSpace(stack, org, { title: "Open" })).id;
  closedSpace = (await createSpace(stack, org, { title: "Closed" })).id;
  expect((await call(stack, "PATCH", `/v1/spaces/${closedSpace}`, { token: org.owner.token, json: { defaultLevel: null } })).status).toBe(200);
  const collection = await createCollection(stack, org, { title: "Private collection" });
  expect((await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: org.owner.token, json: { defaultLevel: null } })).status).toBe(200);
  nestedSpace = (await createSpace(stack, org, { title: "Nested", parent: collection.id })).id;
});

async function createChangeRequest(spaceId: string, subject: string, token = org.owner.token): Promise<ChangeRequest> {
  const response = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token, json: { subject } });
  if (response.status !== 201) throw new Error(`createChangeRequest answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as ChangeRequest;
}
const setStatus = async (cr: ChangeRequest, status: string) =>
  expect((await call(stack, "PATCH", `/v1/spaces/${cr.space}/change-requests/${cr.id}`, { token: org.owner.token, json: { status } })).status).toBe(200);

const list = (query = "", token = org.owner.token) => call(stack, "GET", `/v1/orgs/${org.organizationId}/change-requests${query}`, { token });
const subjects = (response: CallResult) => {
  expect(response.status).toBe(200);
  return (response.body.items as ChangeRequest[]).map((cr) => cr.subject);
};

describe("GET /v1/orgs/{organizationId}/change-requests", () => {
  it("lists the change requests of every space, open by default, with each status, creator, contributor, space and order filter", async () => {
    const a = await createChangeRequest(openSpace, "A");
    const b = await createChangeRequest(openSpace, "B", editor.token);
    const c = await createChangeRequest(closedSpace, "C");
    const d = await createChangeRequest(openSpace, "D");
    const e = await createChangeRequest(nestedSpace, "E");
    await setStatus(d, "draft");
    await setStatus(e, "archived");
    const merged = await createChangeRequest(openSpace, "M");
    expect((await call(stack, "POST", `/v1/spaces/${openSpace}/change-requests/${merged.id}/merge`, { token: org.owner.token })).status).toBe(200);

    const open = await list();
    expect(subjects(open)).toEqual(["C", "B", "A"]);
    expect(open.body.count).toBe(3);
    expect(open.body.items[0]).toMatchObject({
      object: "change-request",
      id: c.id,
      space: closedSpace,
      number: 1,
      status: "open",
      createdBy: { id: org.owner.userId },
    });
    expect(subjects(await list("?status=draft"))).toEqual(["D"]);
    expect(subjects(await list("?status=archived"))).toEqual(["E"]);
    expect(subjects(await list("?status=merged"))).toEqual(["M"]);
    expect(subjects(await list("?status=draft&status=archived"))).toEqual(["E", "D"]);
    expect(subjects(await list("?status=open,merged"))).toEqual(["M", "C", "B", "A"]);
    expect(subjects(await list(`?creator=${editor.userId}`))).toEqual(["B"]);
    expect(subjects(await list(`?space=${openSpace}`))).toEqual(["B", "A"]);
    expect(subjects(await list(`?space=${closedSpace}&status=open,draft`))).toEqual(["C"]);
    expect(subjects(await list("?orderBy=createdAt&status=open,draft"))).toEqual(["D", "C", "B", "A"]);
    expect(subjects(await list("?finding=all"))).toEqual(["C", "B", "A"]);
    expect(subjects(await list("?finding=none"))).toEqual(["C", "B", "A"]);

    // The editor commits on A's branch: A is theirs too, and now the most recently active.
    await commitEdits(editing, { userId: editor.userId, spaceId: openSpace, changeRequestId: a.id }, (draft) =>
      draft.createPage({ pageId: "by-editor", title: "By the editor", markdown: "Hello." }),
    );
    await eventually(async () => subjects(await list(`?contributor=${editor.userId}`)).join() === "A,B");
    await eventually(async () => subjects(await list()).join() === "A,C,B");
    expect(subjects(await list("?orderBy=createdAt"))).toEqual(["C", "B", "A"]);
    expect(subjects(await list(`?contributor=${editor.userId}&space=${closedSpace}`))).toEqual([]);

    // Imprint has no requested reviewers, sites, topics or style guide runs: nothing matches them.
    for (const filter of [`requestedReviewer=${editor.userId}`, "site=site-1", "topic=topic-1", "styleguideRun=run-1"]) {
      expect((await list(`?${filter}`)).body).toEqual({ items: [], count: 0 });
    }
    // Unknown users and spaces match nothing.
    expect(subjects(await list("?creator=nobody"))).toEqual([]);
    expect(subjects(await list("?space=00000000-0000-4000-8000-000000000000"))).toEqual([]);
    expect(b.number).toBe(2);
  });

  it("pages by a stable key with signed cursors", async () => {
    const created: string[] = [];
    for (let index = 0; index < 5; index++) {
      const spaceId = index % 2 === 0 ? openSpace : closedSpace;
      created.push((await createChangeRequest(spaceId, `CR ${index}`)).subject);
    }
    const seen: string[] = [];
    let query = "?limit=2&orderBy=createdAt";
    for (let round = 0; round < 5; round++) {
      const page = await list(query);
      expect(page.body.count).toBe(5);
      seen.push(...subjects(page));
      if (!page.body.next) break;
      query = `?limit=2&orderBy=createdAt&page=${encodeURIComponent(page.body.next.page as string)}`;
    }
    expect(seen).toEqual([...created].reverse());

    // A cursor of one organization's list is refused by another's; bad filters are 400s.
    const first = await list("?limit=2");
    const other = await createOrganization(stack);
    const foreign = await call(stack, "GET", `/v1/orgs/${other.organizationId}/change-requests?page=${encodeURIComponent(first.body.next.page as string)}`, {
      token: other.owner.token,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toBe("page: not a valid page token for this list");
    const badStatus = await list("?status=closed");
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/^status\[0\]: must be one of "draft", "open", "archived", "merged"/);
    expect((await list("?orderBy=title")).status).toBe(400);
    expect((await list("?finding=some")).status).toBe(400);
    expect((await list("?limit=1001")).status).toBe(400);
  });

  it("shows members only the change requests of spaces they can read; other organizations are 404", async () => {
    await createChangeRequest(openSpace, "Visible");
    await createChangeRequest(closedSpace, "Hidden");
    await createChangeRequest(nestedSpace, "Nested");
    expect(subjects(await list())).toEqual(["Nested", "Hidden", "Visible"]);
    const visible = await list("", editor.token);
    expect(subjects(visible)).toEqual(["Visible"]);
    expect(visible.body.count).toBe(1);
    expect(subjects(await list(`?space=${closedSpace}`, editor.token))).toEqual([]);

    // A deleted space's change requests are gone from the list (they come back with the space).
    expect([204, 205]).toContain((await call(stack, "DELETE", `/v1/spaces/${closedSpace}`, { token: org.owner.token })).status);
    expect(subjects(await list())).toEqual(["Nested", "Visible"]);

    const stranger = await createOrganization(stack);
    const foreign = await list("", stranger.owner.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toMatch(/Organization/);
    expect((await call(stack, "GET", "/v1/orgs/00000000-0000-4000-8000-000000000000/change-requests", { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", "/v1/orgs/not-an-id/change-requests", { token: org.owner.token })).status).toBe(404);
    // Filters that match nothing still check membership.
    expect((await list("?topic=topic-1", stranger.owner.token)).status).toBe(404);
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/change-requests`)).status).toBe(401);
  });
});
