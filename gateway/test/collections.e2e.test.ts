import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createCollection, createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
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
async function collectionTitles(nested?: boolean, organization = org): Promise<string[]> {
  const { data } = await organization.owner.api.orgs.listCollectionsInOrganizationById(organization.organizationId, nested === undefined ? {} : { nested });
  return data.items.map((collection) => collection.title);
}

describe("POST/GET /v1/orgs/{organizationId}/collections", () => {
  it("creates collections (201 + Location) and lists them nested by default, top-level with nested=false", async () => {
    const response = await call(stack, "POST", `/v1/orgs/${org.organizationId}/collections`, { token: owner(), json: { title: "Guides" } });
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`${stack.baseUrl}/v1/collections/${response.body.id}`);
    expect(response.body).toEqual({
      object: "collection",
      id: response.body.id,
      title: "Guides",
      organization: org.organizationId,
      defaultLevel: "inherit",
      urls: { location: `${stack.baseUrl}/v1/collections/${response.body.id}`, app: expect.stringContaining(response.body.id) },
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    const nested = await org.owner.api.orgs.createCollection(org.organizationId, { title: "Nested", parent: response.body.id });
    expect(nested.data.parent).toBe(response.body.id);
    await createCollection(stack, org, { title: "Reference" });
    expect(await collectionTitles(false)).toEqual(["Guides", "Reference"]);
    expect((await collectionTitles()).sort()).toEqual(["Guides", "Nested", "Reference"]);
    expect((await collectionTitles(true)).sort()).toEqual(["Guides", "Nested", "Reference"]);
    const paged = await org.owner.api.orgs.listCollectionsInOrganizationById(org.organizationId, { limit: 2 });
    expect(paged.data.count).toBe(3);
    expect(paged.data.next?.page).toBeTruthy();
  });

  it("answers 400 naming the field, 404 for another organization, 403 for a reader", async () => {
    const long = await call(stack, "POST", `/v1/orgs/${org.organizationId}/collections`, { token: owner(), json: { title: "x".repeat(51) } });
    expect([long.status, long.body.error.message]).toEqual([400, "title: must be at most 50 characters"]);
    const badNested = await call(stack, "GET", `/v1/orgs/${org.organizationId}/collections?nested=maybe`, { token: owner() });
    expect([badNested.status, badNested.body.error.message]).toEqual([400, "nested: must be true or false"]);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/orgs/${other.organizationId}/collections`, { token: owner() })).status).toBe(404);
    expect((await call(stack, "POST", `/v1/orgs/${other.organizationId}/collections`, { token: owner(), json: {} })).status).toBe(404);
    const reader = await createMember(stack, org, { role: "read" });
    expect((await call(stack, "POST", `/v1/orgs/${org.organizationId}/collections`, { token: reader.token, json: {} })).status).toBe(403);
  });
});

describe("GET/PATCH/DELETE /v1/collections/{collectionId}", () => {
  it("gets and patches title, description and defaultLevel, with limits", async () => {
    const collection = await createCollection(stack, org);
    expect((await org.owner.api.collections.getCollectionById(collection.id)).data).toEqual(collection);
    const { data } = await org.owner.api.collections.updateCollectionById(collection.id, {
      title: "Renamed",
      description: "About",
      defaultLevel: "read" as never,
    });
    expect(data).toMatchObject({ title: "Renamed", description: "About", defaultLevel: "read" });
    const cleared = await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: owner(), json: { description: null, defaultLevel: null } });
    expect(cleared.body.description).toBeUndefined();
    expect(cleared.body.defaultLevel).toBeNull();
    for (const [json, message] of [
      [{ title: "t".repeat(51) }, "title: must be at most 50 characters"],
      [{ description: "d".repeat(101) }, "description: must be at most 100 characters"],
    ] as const) {
      const response = await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: owner(), json });
      expect([response.status, response.body.error.message]).toEqual([400, message]);
    }
    const reader = await createMember(stack, org, { role: "read" });
    // Default level null: members see nothing of it.
    expect((await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: reader.token, json: { title: "x" } })).status).toBe(404);
    await org.owner.api.collections.updateCollectionById(collection.id, { defaultLevel: "inherit" });
    expect((await call(stack, "PATCH", `/v1/collections/${collection.id}`, { token: reader.token, json: { title: "x" } })).status).toBe(403);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/collections/${collection.id}`, { token: other.owner.token })).status).toBe(404);
  });

  it("deletes with 204 (also when missing); the spaces inside move to the parent", async () => {
    const collection = await createCollection(stack, org);
    const space = await createSpace(stack, org, { title: "inside", parent: collection.id });
    expect((await call(stack, "DELETE", `/v1/collections/${collection.id}`, { token: owner() })).status).toBe(204);
    expect((await call(stack, "GET", `/v1/collections/${collection.id}`, { token: owner() })).status).toBe(404);
    expect((await call(stack, "DELETE", `/v1/collections/${collection.id}`, { token: owner() })).status).toBe(204);
    const moved = await org.owner.api.spaces.getSpaceById(space.id);
    expect(moved.data.parent).toBeUndefined();
  });
});

describe("GET /v1/collections/{collectionId}/spaces", () => {
  it("lists the collection's spaces in order, page by page", async () => {
    const collection = await createCollection(stack, org);
    for (const title of ["s1", "s2", "s3"]) await createSpace(stack, org, { title, parent: collection.id });
    const first = await org.owner.api.collections.listSpacesInCollectionById(collection.id, { limit: 2 });
    expect(first.data.items.map((s) => s.title)).toEqual(["s1", "s2"]);
    expect(first.data.count).toBe(3);
    const second = await org.owner.api.collections.listSpacesInCollectionById(collection.id, { limit: 2, page: first.data.next!.page });
    expect(second.data.items.map((s) => s.title)).toEqual(["s3"]);
  });
});

describe("POST /v1/collections/{collectionId}/move", () => {
  it("orders collections among siblings and nests them; refuses to nest one inside itself", async () => {
    const [a, b, c] = [
      await createCollection(stack, org, { title: "a" }),
      await createCollection(stack, org, { title: "b" }),
      await createCollection(stack, org, { title: "c" }),
    ];
    const moveTo = (id: string, json: unknown) => call(stack, "POST", `/v1/collections/${id}/move`, { token: owner(), json });
    expect((await moveTo(c.id, { position: { before: { type: "collection", collection: a.id } } })).status).toBe(200);
    expect(await collectionTitles(false)).toEqual(["c", "a", "b"]);
    await org.owner.api.collections.moveCollection(c.id, { position: { after: { type: "collection", collection: b.id } } as never });
    expect(await collectionTitles(false)).toEqual(["a", "b", "c"]);
    const nested = await moveTo(b.id, { parent: a.id });
    expect(nested.body.parent).toBe(a.id);
    expect(await collectionTitles(false)).toEqual(["a", "c"]);
    const cycle = await moveTo(a.id, { parent: b.id });
    expect([cycle.status, cycle.body.error.message]).toEqual([400, "parent: a collection cannot move into itself or one of its sub-collections"]);
    expect((await moveTo(a.id, {})).status).toBe(400);
  });
});

describe("POST /v1/collections/{collectionId}/transfer", () => {
  it("transfers the collection with its spaces when the caller is an admin of both organizations", async () => {
    const target = await createOrganization(stack);
    await createMember(stack, target, { role: "admin", email: org.owner.email });
    const collection = await createCollection(stack, org, { title: "moving" });
    const space = await createSpace(stack, org, { parent: collection.id });
    const { data } = await org.owner.api.collections.transferCollection(collection.id, { organization: target.organizationId });
    expect(data).toMatchObject({ id: collection.id, organization: target.organizationId });
    expect(await collectionTitles(undefined, target)).toEqual(["moving"]);
    expect(await collectionTitles()).toEqual([]);
    expect((await target.owner.api.spaces.getSpaceById(space.id)).data.organization).toBe(target.organizationId);
  });

  it("answers 400 without organization, 404 outside it, 403 without admin there, 412 for its own organization", async () => {
    const collection = await createCollection(stack, org);
    const transfer = (json: unknown) => call(stack, "POST", `/v1/collections/${collection.id}/transfer`, { token: owner(), json });
    const missing = await transfer({});
    expect([missing.status, missing.body.error.message]).toEqual([400, "organization: is required"]);
    const target = await createOrganization(stack);
    expect((await transfer({ organization: target.organizationId })).status).toBe(404);
    await createMember(stack, target, { role: "create", email: org.owner.email });
    await eventually(async () => (await transfer({ organization: target.organizationId })).status === 403, 5_000);
    expect((await transfer({ organization: org.organizationId })).status).toBe(412);
  });
});
