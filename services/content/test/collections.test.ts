import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  eventually,
  createMember,
  createCollection,
  createOrganization,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  waitForEvents,
} from "@imprint/runtime/testing";
import { UpdateCollectionRequest } from "@imprint/proto/content/v1/collections";
import { ContentLevel, type Position } from "@imprint/proto/content/v1/spaces";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

let harness: ContentHarness;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startContentHarness();
});
afterAll(async () => {
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
});

const list = (topLevelOnly = false, organization = org) =>
  harness.collections.listCollections({ caller: organization.owner.caller, organizationId: organization.organizationId, page: undefined, topLevelOnly });
const titles = async (topLevelOnly = false, organization = org) => (await list(topLevelOnly, organization)).collections.map((c) => c.title);
const spacesIn = async (collectionId: string) =>
  (await harness.collections.listCollectionSpaces({ caller: org.owner.caller, collectionId, page: undefined })).spaces.map((s) => s.title);
const update = (fields: Partial<UpdateCollectionRequest>) =>
  harness.collections.updateCollection(UpdateCollectionRequest.fromPartial({ caller: org.owner.caller, ...fields }));
const move = (collectionId: string, fields: { parent?: { collectionId: string }; position?: Position }) =>
  harness.collections.moveCollection({ caller: org.owner.caller, collectionId, parent: fields.parent, position: fields.position });

describe("CreateCollection / GetCollection / ListCollections", () => {
  it("creates top-level and nested collections; lists all by default and only the top level on request", async () => {
    const since = new Date(Date.now() - 1_000);
    const guides = await createCollection(harness, org, { title: "Guides" });
    expect(guides).toMatchObject({
      organizationId: org.organizationId,
      parentId: "",
      title: "Guides",
      description: "",
      defaultLevel: ContentLevel.CONTENT_LEVEL_INHERIT,
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    const nested = await createCollection(harness, org, { title: "Nested", parentId: guides.id });
    expect(nested.parentId).toBe(guides.id);
    await createCollection(harness, org, { title: "Reference" });
    expect(await titles(true)).toEqual(["Guides", "Reference"]);
    expect((await titles()).sort()).toEqual(["Guides", "Nested", "Reference"]);
    expect((await harness.collections.getCollection({ caller: org.owner.caller, collectionId: nested.id })).collection).toEqual(nested);

    const paged = await harness.collections.listCollections({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: "", pageSize: 2 },
      topLevelOnly: false,
    });
    expect(paged.collections).toHaveLength(2);
    expect(paged.page!.totalCount).toBe(3);
    expect(paged.page!.nextPageToken).not.toBe("");
    await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      { types: ["collection.created", "collection.created", "collection.created"] },
    );
  });

  it("validates the title and the parent, naming the field", async () => {
    const create = (title: string, parentId = "") =>
      failure(harness.collections.createCollection({ caller: org.owner.caller, organizationId: org.organizationId, title, parentId }));
    expect(await create("x".repeat(51))).toMatchObject({ code: "invalid_argument", message: "title: must be at most 50 characters" });
    const other = await createOrganization(harness);
    const foreign = await createCollection(harness, other);
    expect(await create("ok", foreign.id)).toMatchObject({ code: "invalid_argument", message: "parent: no such collection in this organization" });
    expect((await createCollection(harness, org, { title: "c".repeat(50) })).title).toBe("c".repeat(50));
  });

  it("answers not_found for another organization's collection", async () => {
    const other = await createOrganization(harness);
    const foreign = await createCollection(harness, other);
    expect(await errorCode(harness.collections.getCollection({ caller: org.owner.caller, collectionId: foreign.id }))).toBe("not_found");
    expect(await errorCode(harness.collections.listCollectionSpaces({ caller: org.owner.caller, collectionId: foreign.id, page: undefined }))).toBe(
      "not_found",
    );
    expect(await titles(false, other)).toHaveLength(1);
  });
});

describe("UpdateCollection", () => {
  it("updates title, description and default level; null-like empty description clears it", async () => {
    const collection = await createCollection(harness, org);
    const { collection: updated } = await update({
      collectionId: collection.id,
      updateMask: ["title", "description", "defaultLevel"],
      title: "Renamed",
      description: "d".repeat(100),
      defaultLevel: ContentLevel.CONTENT_LEVEL_EDIT,
    });
    expect(updated).toMatchObject({ title: "Renamed", description: "d".repeat(100), defaultLevel: ContentLevel.CONTENT_LEVEL_EDIT });
    expect((await update({ collectionId: collection.id, updateMask: ["description"], description: "" })).collection!.description).toBe("");
    expect(await failure(update({ collectionId: collection.id, updateMask: ["description"], description: "d".repeat(101) }))).toMatchObject({
      code: "invalid_argument",
      message: "description: must be at most 100 characters",
    });
    expect(await failure(update({ collectionId: collection.id, updateMask: ["title"], title: "t".repeat(51) }))).toMatchObject({
      message: "title: must be at most 50 characters",
    });
    expect(await failure(update({ collectionId: collection.id, updateMask: ["default_level"] }))).toMatchObject({ code: "invalid_argument" });
  });
});

describe("DeleteCollection", () => {
  it("moves its spaces and sub-collections to its parent, after the parent's items, keeping access as it was", async () => {
    const since = new Date(Date.now() - 1_000);
    const parent = await createCollection(harness, org, { title: "parent" });
    await createSpace(harness, org, { title: "existing", parentId: parent.id });
    const doomed = await createCollection(harness, org, { title: "doomed", parentId: parent.id });
    await update({ collectionId: doomed.id, updateMask: ["default_level"], defaultLevel: ContentLevel.CONTENT_LEVEL_READ });
    const first = await createSpace(harness, org, { title: "first", parentId: doomed.id });
    const second = await createSpace(harness, org, { title: "second", parentId: doomed.id });
    const child = await createCollection(harness, org, { title: "child", parentId: doomed.id });
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: second.id });

    await harness.collections.deleteCollection({ caller: org.owner.caller, collectionId: doomed.id });
    expect(await errorCode(harness.collections.getCollection({ caller: org.owner.caller, collectionId: doomed.id }))).toBe("not_found");
    expect(await spacesIn(parent.id)).toEqual(["existing", "first"]);
    const moved = (await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: first.id, shareKey: "" })).space!;
    // It inherited "read" from the deleted collection: it keeps it.
    expect(moved).toMatchObject({ parentId: parent.id, defaultLevel: ContentLevel.CONTENT_LEVEL_READ });
    expect((await harness.collections.getCollection({ caller: org.owner.caller, collectionId: child.id })).collection!.parentId).toBe(parent.id);
    // The deleted space moved too: once restored it lives in the parent.
    expect((await harness.spaces.restoreSpace({ caller: org.owner.caller, spaceId: second.id })).space!.parentId).toBe(parent.id);
    expect(await spacesIn(parent.id)).toEqual(["existing", "first", "second"]);

    const events = await waitForEvents("content", { since, organizationId: org.organizationId }, { types: ["collection.deleted"] });
    expect(events.find((e) => e.type === "collection.deleted")!.payload).toMatchObject({
      collectionId: doomed.id,
      parentId: parent.id,
      movedCollectionIds: [child.id],
    });
  });

  it("succeeds when the collection does not exist or belongs to another organization", async () => {
    await harness.collections.deleteCollection({ caller: org.owner.caller, collectionId: "00000000-0000-4000-8000-000000000000" });
    const other = await createOrganization(harness);
    const foreign = await createCollection(harness, other);
    await harness.collections.deleteCollection({ caller: org.owner.caller, collectionId: foreign.id });
    expect((await harness.collections.getCollection({ caller: other.owner.caller, collectionId: foreign.id })).collection!.id).toBe(foreign.id);
  });
});

describe("ListCollectionSpaces", () => {
  it("pages through the spaces of one collection in sibling order", async () => {
    const collection = await createCollection(harness, org);
    for (const title of ["s1", "s2", "s3"]) await createSpace(harness, org, { title, parentId: collection.id });
    await createSpace(harness, org, { title: "elsewhere" });
    const first = await harness.collections.listCollectionSpaces({
      caller: org.owner.caller,
      collectionId: collection.id,
      page: { pageToken: "", pageSize: 2 },
    });
    expect(first.spaces.map((s) => s.title)).toEqual(["s1", "s2"]);
    expect(first.page!.totalCount).toBe(3);
    const rest = await harness.collections.listCollectionSpaces({
      caller: org.owner.caller,
      collectionId: collection.id,
      page: { pageToken: first.page!.nextPageToken, pageSize: 2 },
    });
    expect(rest.spaces.map((s) => s.title)).toEqual(["s3"]);
  });
});

describe("MoveCollection", () => {
  it("orders collections among their siblings and nests them, one row per move", async () => {
    const [a, b, c] = [
      await createCollection(harness, org, { title: "a" }),
      await createCollection(harness, org, { title: "b" }),
      await createCollection(harness, org, { title: "c" }),
    ];
    await move(c.id, { position: { after: { collectionId: a.id } } });
    expect(await titles(true)).toEqual(["a", "c", "b"]);
    await move(b.id, { position: { before: { collectionId: a.id } } });
    expect(await titles(true)).toEqual(["b", "a", "c"]);
    await move(b.id, { parent: { collectionId: "" } });
    expect(await titles(true)).toEqual(["a", "c", "b"]);
    const nested = (await move(b.id, { parent: { collectionId: a.id } })).collection!;
    expect(nested.parentId).toBe(a.id);
    expect(await titles(true)).toEqual(["a", "c"]);
    void c;
  });

  it("refuses to move a collection into itself or below itself", async () => {
    const top = await createCollection(harness, org);
    const below = await createCollection(harness, org, { parentId: top.id });
    for (const target of [top.id, below.id]) {
      expect(await failure(move(top.id, { parent: { collectionId: target } }))).toMatchObject({
        code: "invalid_argument",
        message: "parent: a collection cannot move into itself or one of its sub-collections",
      });
    }
  });
});

describe("TransferCollection", () => {
  it("moves the collection, its sub-collections and their spaces to the other organization's top level", async () => {
    const since = new Date(Date.now() - 1_000);
    const target = await createOrganization(harness);
    await createMember(harness, target.organizationId, { email: org.owner.email, role: "admin" });
    const top = await createCollection(harness, org, { title: "top" });
    const below = await createCollection(harness, org, { title: "below", parentId: top.id });
    const space = await createSpace(harness, org, { title: "deep", parentId: below.id });
    const parent = await createCollection(harness, org, { title: "stays" });
    await move(top.id, { parent: { collectionId: parent.id } });

    const collection = (await harness.collections.transferCollection({ caller: org.owner.caller, collectionId: top.id, organizationId: target.organizationId }))
      .collection!;
    expect(collection).toMatchObject({ id: top.id, organizationId: target.organizationId, parentId: "" });
    expect(await titles(false)).toEqual(["stays"]);
    expect((await titles(false, target)).sort()).toEqual(["below", "top"]);
    const moved = await harness.spaces.getSpace({ caller: target.owner.caller, spaceId: space.id, shareKey: "" });
    expect(moved.space).toMatchObject({ organizationId: target.organizationId, parentId: below.id });
    const events = await waitForEvents("content", { since, organizationId: target.organizationId }, { types: ["collection.transferred"] });
    expect(events.find((e) => e.type === "collection.transferred")!.payload).toMatchObject({
      collectionId: top.id,
      fromOrganizationId: org.organizationId,
      spaceIds: [space.id],
    });
  });

  it("needs admin in both organizations and another organization", async () => {
    const collection = await createCollection(harness, org);
    const target = await createOrganization(harness);
    const transfer = (organizationId: string, caller = org.owner.caller) =>
      harness.collections.transferCollection({ caller, collectionId: collection.id, organizationId });
    expect(await errorCode(transfer(target.organizationId))).toBe("not_found");
    expect(await failure(transfer(""))).toMatchObject({ code: "invalid_argument", message: "organization: is required" });
    expect(await failure(transfer(org.organizationId))).toMatchObject({ code: "failed_precondition" });
    await createMember(harness, target.organizationId, { email: org.owner.email, role: "create" });
    await eventually(async () => (await errorCode(transfer(target.organizationId))) === "permission_denied");
    const creator = await createMember(harness, org.organizationId, { role: "create" });
    await createMember(harness, target.organizationId, { email: creator.email, role: "admin" });
    await eventually(async () => (await errorCode(transfer(target.organizationId, creator.caller))) === "permission_denied");
  });
});
