import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
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

const owner = () => org.owner.token;
/** Top-level space titles of the organization, in sibling order. */
async function topLevelTitles(organization = org): Promise<string[]> {
  const { data } = await organization.owner.api.orgs.listSpacesInOrganizationById(organization.organizationId);
  return data.items.filter((space) => space.parent === undefined).map((space) => space.title);
}

describe("POST /v1/orgs/{organizationId}/spaces", () => {
  it("creates a space (201 + Location) shaped as GitBook's Space, with its first revision", async () => {
    const response = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token: owner(), json: { title: "Guides", emoji: "📘" } });
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`${stack.baseUrl}/v1/spaces/${response.body.id}`);
    expect(response.body).toMatchObject({
      object: "space",
      title: "Guides",
      emoji: "📘",
      organization: org.organizationId,
      visibility: "private",
      editMode: "live",
      defaultLevel: "inherit",
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      mergeRules: { type: "inherit" },
      urls: { location: `${stack.baseUrl}/v1/spaces/${response.body.id}` },
      permissions: { view: true, admin: true, edit: true },
    });
    expect(response.body.revision).toMatch(/\S/);
    expect(response.body.parent).toBeUndefined();
    const fetched = await org.owner.api.spaces.getSpaceById(response.body.id, { shareKey: "accepted-and-ignored" });
    expect(fetched.data).toEqual(response.body);
  });

  it("creates without a body, and inside a collection", async () => {
    const untitled = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token: owner() });
    expect(untitled.status).toBe(201);
    expect(untitled.body.title).toBe("Untitled");
    const collection = await createCollection(stack, org);
    const inside = await org.owner.api.orgs.createSpace(org.organizationId, { title: "Inside", parent: collection.id });
    expect(inside.data.parent).toBe(collection.id);
  });

  it("answers 400 naming the field for titles and emoji over 50 characters and bad values", async () => {
    const cases: [unknown, string][] = [
      [{ title: "x".repeat(51) }, "title: must be at most 50 characters"],
      [{ title: "ok", emoji: "🎉".repeat(51) }, "emoji: must be at most 50 characters"],
      [{ title: 42 }, "title: expected string, received number"],
      [{ editMode: "frozen" }, 'editMode: must be one of "live", "locked"'],
      [{ parent: "nope" }, "parent: no such collection in this organization"],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token: owner(), json });
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
  });

  it("answers 404 in another organization and 403 to a reader", async () => {
    const other = await createOrganization(stack);
    expect((await call(stack, "POST", `/v1/orgs/${other.organizationId}/spaces`, { token: owner(), json: {} })).status).toBe(404);
    const reader = await createMember(stack, org, { role: "read" });
    expect((await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, { token: reader.token, json: {} })).status).toBe(403);
  });
});

describe("GET /v1/orgs/{organizationId}/spaces", () => {
  it("lists page by page with next.page and count", async () => {
    for (const title of ["one", "two", "three"]) await createSpace(stack, org, { title });
    const first = await org.owner.api.orgs.listSpacesInOrganizationById(org.organizationId, { limit: 2 });
    expect(first.data.items.map((s) => s.title)).toEqual(["one", "two"]);
    expect(first.data.count).toBe(3);
    const second = await org.owner.api.orgs.listSpacesInOrganizationById(org.organizationId, { limit: 2, page: first.data.next!.page });
    expect(second.data.items.map((s) => s.title)).toEqual(["three"]);
    expect(second.data.next).toBeUndefined();
    const tooMany = await call(stack, "GET", `/v1/orgs/${org.organizationId}/spaces?limit=1001`, { token: owner() });
    expect(tooMany.status).toBe(400);
  });
});

describe("GET/PATCH/DELETE /v1/spaces/{spaceId}", () => {
  it("patches title, emoji, editMode, defaultLevel and visibility; emoji null removes it", async () => {
    const space = await createSpace(stack, org, { emoji: "📘" });
    const { data } = await org.owner.api.spaces.updateSpaceById(space.id, {
      title: "Renamed",
      editMode: "locked" as never,
      defaultLevel: "read" as never,
      emoji: null,
    });
    expect(data).toMatchObject({ title: "Renamed", editMode: "locked", defaultLevel: "read", emoji: "" });
    expect(data.permissions).toMatchObject({ admin: true, edit: false });
    const visible = await call(stack, "PATCH", `/v1/spaces/${space.id}`, { token: owner(), json: { visibility: "unlisted", defaultLevel: null } });
    expect(visible.body).toMatchObject({ visibility: "unlisted", defaultLevel: null });
    const cases: [unknown, string][] = [
      [{ title: "t".repeat(51) }, "title: must be at most 50 characters"],
      [{ emoji: "e".repeat(51) }, "emoji: must be at most 50 characters"],
      [{ visibility: "in-collection" }, "visibility: in-collection is only for spaces in a collection"],
      [{ defaultLevel: "owner" }, 'defaultLevel: must be one of "admin", "create", "edit", "review", "comment", "read", "inherit"'],
      [{}, "update_mask: must name at least one field"],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "PATCH", `/v1/spaces/${space.id}`, { token: owner(), json });
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
  });

  it("keeps the language: created with one, PATCHed alone, read back, copied by duplicate; a bad code answers 400 naming it", async () => {
    const created = await org.owner.api.orgs.createSpace(org.organizationId, { title: "Guide", language: "de" as never });
    expect(created.data.language).toBe("de");
    const plain = await createSpace(stack, org);
    expect(plain.language).toBeUndefined();
    const { data } = await org.owner.api.spaces.updateSpaceById(plain.id, { language: "fr" as never });
    expect(data).toMatchObject({ id: plain.id, language: "fr", title: plain.title });
    expect((await org.owner.api.spaces.getSpaceById(plain.id)).data.language).toBe("fr");
    const copy = await call(stack, "POST", `/v1/spaces/${plain.id}/duplicate`, { token: owner() });
    expect(copy.body.language).toBe("fr");
    for (const [method, path] of [
      ["PATCH", `/v1/spaces/${plain.id}`],
      ["POST", `/v1/orgs/${org.organizationId}/spaces`],
    ] as const) {
      const response = await call(stack, method, path, { token: owner(), json: { language: "klingon" } });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/^language: /);
    }
  });

  it("answers 404 for another organization's space, unknown ids and deleted spaces; DELETE answers 204 regardless", async () => {
    const other = await createOrganization(stack);
    const foreign = await createSpace(stack, other);
    for (const id of [foreign.id, "00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const response = await call(stack, "GET", `/v1/spaces/${id}`, { token: owner() });
      expect(response.status).toBe(404);
      expect(response.body.error.message).toBe("Space not found");
    }
    const space = await createSpace(stack, org);
    expect((await call(stack, "DELETE", `/v1/spaces/${space.id}`, { token: owner() })).status).toBe(204);
    expect((await call(stack, "GET", `/v1/spaces/${space.id}`, { token: owner() })).status).toBe(404);
    expect((await call(stack, "DELETE", `/v1/spaces/${space.id}`, { token: owner() })).status).toBe(204);
    expect((await call(stack, "DELETE", `/v1/spaces/${foreign.id}`, { token: owner() })).status).toBe(204);
    expect((await other.owner.api.spaces.getSpaceById(foreign.id)).data.id).toBe(foreign.id);
  });
});

describe("permissions", () => {
  let reader: TestUser;
  let guest: TestUser;
  beforeEach(async () => {
    reader = await createMember(stack, org, { role: "read" });
    guest = await createMember(stack, org, { role: "guest" });
  });

  it("a reader sees the space read-only and gets 403 on changes; a guest sees nothing", async () => {
    const space = await createSpace(stack, org);
    const seen = await reader.api.spaces.getSpaceById(space.id);
    expect(seen.data.permissions).toMatchObject({ view: true, edit: false, comment: false, admin: false });
    for (const [method, path, json] of [
      ["PATCH", `/v1/spaces/${space.id}`, { title: "mine" }],
      ["DELETE", `/v1/spaces/${space.id}`, undefined],
      ["POST", `/v1/spaces/${space.id}/move`, { parent: null }],
      ["POST", `/v1/spaces/${space.id}/duplicate`, undefined],
    ] as const) {
      expect([path, (await call(stack, method, path, { token: reader.token, json })).status]).toEqual([path, 403]);
    }
    expect((await call(stack, "GET", `/v1/spaces/${space.id}`, { token: guest.token })).status).toBe(404);
    const listed = await guest.api.orgs.listSpacesInOrganizationById(org.organizationId);
    expect(listed.data).toEqual({ items: [], count: 0 });
  });

  it("a removed member loses access within seconds", async () => {
    const space = await createSpace(stack, org);
    expect((await reader.api.spaces.getSpaceById(space.id)).status).toBe(200);
    expect((await call(stack, "DELETE", `/v1/orgs/${org.organizationId}/members/${reader.userId}`, { token: owner() })).status).toBe(204);
    await eventually(async () => (await call(stack, "GET", `/v1/spaces/${space.id}`, { token: reader.token })).status === 404, 5_000);
  });
});

describe("POST /v1/spaces/{spaceId}/duplicate and /restore", () => {
  it("duplicates with 201 + Location right after the original", async () => {
    const original = await createSpace(stack, org, { title: "Original" });
    await createSpace(stack, org, { title: "Next" });
    const response = await call(stack, "POST", `/v1/spaces/${original.id}/duplicate`, { token: owner() });
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`${stack.baseUrl}/v1/spaces/${response.body.id}`);
    expect(response.body).toMatchObject({ title: "Original (copy)", object: "space" });
    expect(response.body.revision).not.toBe(original.revision);
    expect(await topLevelTitles()).toEqual(["Original", "Original (copy)", "Next"]);
  });

  it("restores on day 6 and answers 404 on day 8", async () => {
    const kept = await createSpace(stack, org, { title: "kept" });
    const lost = await createSpace(stack, org, { title: "lost" });
    await org.owner.api.spaces.deleteSpaceById(kept.id);
    await org.owner.api.spaces.deleteSpaceById(lost.id);
    stack.clock.advanceDays(6);
    const restored = await org.owner.api.spaces.restoreSpace(kept.id);
    expect(restored.data).toMatchObject({ id: kept.id, title: "kept" });
    expect(restored.data.deletedAt).toBeUndefined();
    stack.clock.advanceDays(2);
    const late = await call(stack, "POST", `/v1/spaces/${lost.id}/restore`, { token: owner() });
    expect(late.status).toBe(404);
    expect((await org.owner.api.spaces.getSpaceById(kept.id)).data.id).toBe(kept.id);
  });
});

describe("POST /v1/spaces/{spaceId}/move", () => {
  it("orders spaces: between two, first, last, into a collection and back", async () => {
    const [a, b, c] = [
      await createSpace(stack, org, { title: "a" }),
      await createSpace(stack, org, { title: "b" }),
      await createSpace(stack, org, { title: "c" }),
    ];
    const moveTo = (spaceId: string, json: unknown) => call(stack, "POST", `/v1/spaces/${spaceId}/move`, { token: owner(), json });
    expect((await moveTo(c.id, { position: { before: { type: "space", space: b.id } } })).status).toBe(200);
    expect(await topLevelTitles()).toEqual(["a", "c", "b"]);
    await org.owner.api.spaces.moveSpace(b.id, { position: { before: { type: "space", space: a.id } } as never });
    expect(await topLevelTitles()).toEqual(["b", "a", "c"]);
    await moveTo(b.id, { parent: null });
    expect(await topLevelTitles()).toEqual(["a", "c", "b"]);
    const collection = await createCollection(stack, org);
    const moved = await moveTo(a.id, { parent: collection.id });
    expect(moved.body.parent).toBe(collection.id);
    expect(await topLevelTitles()).toEqual(["c", "b"]);
    const inCollection = await org.owner.api.collections.listSpacesInCollectionById(collection.id);
    expect(inCollection.data.items.map((s) => s.title)).toEqual(["a"]);
    await moveTo(a.id, { position: { after: { type: "space", space: c.id } } });
    expect(await topLevelTitles()).toEqual(["c", "a", "b"]);
  });

  it("answers 400 for an empty body, an unknown sibling, or both before and after", async () => {
    const a = await createSpace(stack, org);
    const b = await createSpace(stack, org);
    const cases: [unknown, string][] = [
      [{}, "body: must contain parent or position"],
      [
        { position: { before: { type: "space", space: "00000000-0000-4000-8000-000000000000" } } },
        "position.before: no such space among the items of the target top level",
      ],
      [{ position: { before: { type: "space", space: b.id }, after: { type: "space", space: b.id } } }, "position: give either before or after, not both"],
      [{ position: { before: { type: "page", page: b.id } } }, "position.before.type: does not match any of the accepted shapes"],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "POST", `/v1/spaces/${a.id}/move`, { token: owner(), json });
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
  });
});

describe("POST /v1/spaces/{spaceId}/transfer", () => {
  const notInOpenApi = "transferSpace exists only in @gitbook/api 0.143.2 (endpoints.md)";

  it("transfers to another organization when the caller is an admin of both", async () => {
    const target = await createOrganization(stack);
    await createMember(stack, target, { role: "admin", email: org.owner.email });
    const space = await createSpace(stack, org, { title: "moving" });
    const response = await call(stack, "POST", `/v1/spaces/${space.id}/transfer`, {
      token: owner(),
      json: { organization: target.organizationId },
      notInOpenApi,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: space.id, organization: target.organizationId });
    expect(await topLevelTitles()).toEqual([]);
    expect(await topLevelTitles(target)).toEqual(["moving"]);
  });

  it("answers 400 without organization, 404 for an organization the caller is not in, 403 without admin there, 412 for a no-op", async () => {
    const space = await createSpace(stack, org);
    const transfer = (json: unknown) => call(stack, "POST", `/v1/spaces/${space.id}/transfer`, { token: owner(), json, notInOpenApi });
    expect((await transfer({})).body.error.message).toBe("organization: is required");
    const target = await createOrganization(stack);
    expect((await transfer({ organization: target.organizationId })).status).toBe(404);
    await createMember(stack, target, { role: "edit", email: org.owner.email });
    await eventually(async () => (await transfer({ organization: target.organizationId })).status === 403, 5_000);
    expect((await transfer({ organization: org.organizationId })).status).toBe(412);
  });
});

describe("GET /v1/orgs/{organizationId}/members/{userId}/spaces", () => {
  it("lists the member's spaces with their permission, newest first by default", async () => {
    const reader = await createMember(stack, org, { role: "read" });
    await createSpace(stack, org, { title: "older" });
    stack.clock.advanceDays(0.001);
    await createSpace(stack, org, { title: "newer" });
    const { data } = await org.owner.api.orgs.listSpacesForOrganizationMember(org.organizationId, reader.userId);
    expect(data.items.map((item) => [item.space.title, item.permission])).toEqual([
      ["newer", "read"],
      ["older", "read"],
    ]);
    expect(data.count).toBe(2);
    const ascending = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${reader.userId}/spaces?order=asc`, { token: reader.token });
    expect(ascending.body.items.map((item: { space: { title: string } }) => item.space.title)).toEqual(["older", "newer"]);
    const forbidden = await call(stack, "GET", `/v1/orgs/${org.organizationId}/members/${org.owner.userId}/spaces`, { token: reader.token });
    expect(forbidden.status).toBe(403);
  });
});
