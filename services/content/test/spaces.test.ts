import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  eventually,
  createMember,
  createCollection,
  createOrganization,
  createOutsider,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  waitForEvents,
} from "@imprint/runtime/testing";
import { SortOrder } from "@imprint/proto/common/v1";
import { ContentLevel, SpaceEditMode, SpaceVisibility, UpdateSpaceRequest, type Position } from "@imprint/proto/content/v1/spaces";
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

const update = (fields: Partial<UpdateSpaceRequest>) => harness.spaces.updateSpace(UpdateSpaceRequest.fromPartial({ caller: org.owner.caller, ...fields }));
const titles = async (organization = org) =>
  (await harness.spaces.listSpaces({ caller: organization.owner.caller, organizationId: organization.organizationId, page: undefined })).spaces.map(
    (s) => s.title,
  );
/** Titles of the top-level spaces, in sibling order. */
const topLevelTitles = async () =>
  (await harness.spaces.listSpaces({ caller: org.owner.caller, organizationId: org.organizationId, page: undefined })).spaces
    .filter((s) => s.parentId === "")
    .map((s) => s.title);
const move = (spaceId: string, fields: { parent?: { collectionId: string }; position?: Position }) =>
  harness.spaces.moveSpace({ caller: org.owner.caller, spaceId, parent: fields.parent, position: fields.position });

describe("CreateSpace / GetSpace", () => {
  it("creates a space at the top level and returns it with the owner's permissions", async () => {
    const space = await createSpace(harness, org, { title: "Handbook", emoji: "📘" });
    expect(space).toMatchObject({
      organizationId: org.organizationId,
      parentId: "",
      title: "Handbook",
      emoji: "📘",
      visibility: SpaceVisibility.SPACE_VISIBILITY_PRIVATE,
      editMode: SpaceEditMode.SPACE_EDIT_MODE_LIVE,
      defaultLevel: ContentLevel.CONTENT_LEVEL_INHERIT,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      permissions: { view: true, access: true, admin: true, edit: true, comment: true, merge: true, review: true },
    });
    expect(space.deletedAt).toBeUndefined();
    const fetched = (await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: space.id, shareKey: "ignored-until-sites-exist" })).space!;
    expect(fetched).toEqual(space);
  });

  it("creates a space inside a collection, and an untitled one when no title is given", async () => {
    const collection = await createCollection(harness, org);
    const space = await createSpace(harness, org, { parentId: collection.id, title: "  " });
    expect(space).toMatchObject({ parentId: collection.id, title: "Untitled" });
  });

  it("rejects a title or emoji over 50 characters, and a non-emoji, naming the field", async () => {
    const create = (title: string, emoji = "") =>
      failure(harness.spaces.createSpace({ caller: org.owner.caller, organizationId: org.organizationId, title, emoji, parentId: "", editMode: 0 }));
    expect(await create("x".repeat(51))).toMatchObject({ code: "invalid_argument", message: "title: must be at most 50 characters" });
    expect(await create("ok", "🎉".repeat(51))).toMatchObject({ code: "invalid_argument", message: "emoji: must be at most 50 characters" });
    expect(await create("ok", "hello")).toMatchObject({
      code: "invalid_argument",
      message: "emoji: must be an emoji character or its Unicode code point in hex",
    });
    // Limits count characters, not UTF-16 units: 50 emoji are fine.
    expect((await createSpace(harness, org, { title: "🎉".repeat(50), emoji: "1f389" })).title).toBe("🎉".repeat(50));
  });

  it("rejects a parent that is not a collection of the organization", async () => {
    const other = await createOrganization(harness);
    const foreign = await createCollection(harness, other);
    for (const parentId of [foreign.id, "not-an-id"]) {
      const error = await failure(createSpace(harness, org, { parentId }));
      expect(error).toMatchObject({ code: "invalid_argument", message: "parent: no such collection in this organization" });
    }
  });

  it("answers not_found for another organization's space and for unknown ids", async () => {
    const other = await createOrganization(harness);
    const foreign = await createSpace(harness, other);
    for (const spaceId of [foreign.id, "00000000-0000-4000-8000-000000000000", "garbage"]) {
      expect(await errorCode(harness.spaces.getSpace({ caller: org.owner.caller, spaceId, shareKey: "" }))).toBe("not_found");
    }
    const outsider = await createOutsider(harness);
    expect(await errorCode(harness.spaces.listSpaces({ caller: outsider.caller, organizationId: org.organizationId, page: undefined }))).toBe("not_found");
  });
});

describe("ListSpaces", () => {
  it("pages through the organization's spaces in sibling order, without deleted ones", async () => {
    for (const title of ["one", "two", "three"]) await createSpace(harness, org, { title });
    const deleted = await createSpace(harness, org, { title: "gone" });
    await harness.spaces.deleteSpace({ caller: org.owner.caller, spaceId: deleted.id });
    const first = await harness.spaces.listSpaces({ caller: org.owner.caller, organizationId: org.organizationId, page: { pageToken: "", pageSize: 2 } });
    expect(first.spaces.map((s) => s.title)).toEqual(["one", "two"]);
    expect(first.page).toMatchObject({ totalCount: 3 });
    const second = await harness.spaces.listSpaces({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      page: { pageToken: first.page!.nextPageToken, pageSize: 2 },
    });
    expect(second.spaces.map((s) => s.title)).toEqual(["three"]);
    expect(second.page!.nextPageToken).toBe("");
    expect(
      await errorCode(harness.spaces.listSpaces({ caller: org.owner.caller, organizationId: org.organizationId, page: { pageToken: "", pageSize: 1001 } })),
    ).toBe("invalid_argument");
  });
});

describe("UpdateSpace", () => {
  it("changes the masked fields only and records space.updated with the changes", async () => {
    const since = new Date(Date.now() - 1_000);
    const space = await createSpace(harness, org, { title: "Before", emoji: "📘" });
    harness.clock.advance(1_000);
    const updated = (
      await update({ spaceId: space.id, updateMask: ["title", "editMode"], title: "After", emoji: "🎉", editMode: SpaceEditMode.SPACE_EDIT_MODE_LOCKED })
    ).space!;
    expect(updated).toMatchObject({ title: "After", emoji: "📘", editMode: SpaceEditMode.SPACE_EDIT_MODE_LOCKED });
    // A locked space takes no edits, even from its admins.
    expect(updated.permissions).toMatchObject({ admin: true, edit: false, merge: false, view: true });
    expect(updated.updatedAt!.getTime()).toBeGreaterThan(space.updatedAt!.getTime());

    const cleared = (
      await update({
        spaceId: space.id,
        updateMask: ["emoji", "default_level", "visibility"],
        emoji: "",
        defaultLevel: ContentLevel.CONTENT_LEVEL_READ,
        visibility: SpaceVisibility.SPACE_VISIBILITY_UNLISTED,
      })
    ).space!;
    expect(cleared).toMatchObject({ emoji: "", defaultLevel: ContentLevel.CONTENT_LEVEL_READ, visibility: SpaceVisibility.SPACE_VISIBILITY_UNLISTED });

    const events = await waitForEvents(
      "content",
      { since, organizationId: org.organizationId },
      { types: ["space.created", "space.updated", "space.updated"] },
    );
    const firstUpdate = events.find((event) => event.type === "space.updated")!;
    expect(firstUpdate).toMatchObject({
      subject: "imprint.content.v1.space.updated",
      actor: { userId: org.owner.userId },
      payload: { spaceId: space.id, changedFields: ["title", "editMode"], changes: { title: { from: "Before", to: "After" } } },
    });
  });

  it("validates every field, naming it", async () => {
    const space = await createSpace(harness, org);
    const cases: [Partial<UpdateSpaceRequest>, string][] = [
      [{ updateMask: [] }, "update_mask: must name at least one field"],
      [{ updateMask: ["owner"] }, 'update_mask: unknown field "owner"; allowed: title, emoji, edit_mode, default_level, visibility, merge_rules, language'],
      [
        { updateMask: ["language"], language: "xx" },
        "language: must be one of en, fr, de, es, it, pt, pt-br, ru, ja, zh, zh-tw, yue, ko, ar, hi, nl, pl, tr, sv, no, da, fi, el, cs, hu, ro, th, vi, id, ms, he, uk, sk, bg, hr, lt, lv, et, sl",
      ],
      [{ updateMask: ["title"], title: "t".repeat(51) }, "title: must be at most 50 characters"],
      [{ updateMask: ["emoji"], emoji: "x".repeat(51) }, "emoji: must be at most 50 characters"],
      [{ updateMask: ["edit_mode"] }, "editMode: must be live or locked"],
      [{ updateMask: ["default_level"] }, "defaultLevel: must be a role (admin, create, review, edit, comment, read), inherit or null"],
      [{ updateMask: ["visibility"] }, "visibility: must be public, unlisted, share-link, visitor-auth, in-collection or private"],
      [
        { updateMask: ["visibility"], visibility: SpaceVisibility.SPACE_VISIBILITY_IN_COLLECTION },
        "visibility: in-collection is only for spaces in a collection",
      ],
    ];
    for (const [fields, message] of cases) {
      expect(await failure(update({ spaceId: space.id, ...fields }))).toMatchObject({ code: "invalid_argument", message });
    }
  });
});

describe("a space's merge rules", () => {
  it("inherits the organization's until set; keeps none or rules (recorded as a change), answered by every read, kept by a duplicate", async () => {
    const since = new Date(Date.now() - 1_000);
    const space = await createSpace(harness, org);
    expect((await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: space.id, shareKey: "" })).space!.mergeRules).toEqual({
      type: "inherit",
      rules: [],
    });
    const rules = {
      type: "rules",
      rules: [
        { rule: "require_at_least_one_approved_review", userIds: [] },
        { rule: "allow_bypass", userIds: [org.owner.userId] },
      ],
    };
    const updated = (await update({ spaceId: space.id, updateMask: ["merge_rules"], mergeRules: rules })).space!;
    expect(updated.mergeRules).toEqual(rules);
    expect(
      (await harness.spaces.listSpaces({ caller: org.owner.caller, organizationId: org.organizationId, page: undefined })).spaces.find(
        (s) => s.id === space.id,
      )!.mergeRules,
    ).toEqual(rules);
    const copy = (await harness.spaces.duplicateSpace({ caller: org.owner.caller, spaceId: space.id })).space!;
    expect(copy.mergeRules).toEqual(rules);
    const events = await waitForEvents("content", { since, organizationId: org.organizationId }, { types: ["space.updated"] });
    expect(events.find((event) => event.type === "space.updated")!.payload).toMatchObject({ spaceId: space.id, changedFields: ["mergeRules"] });
    expect((await update({ spaceId: space.id, updateMask: ["merge_rules"], mergeRules: { type: "none", rules: [] } })).space!.mergeRules).toEqual({
      type: "none",
      rules: [],
    });
    expect((await update({ spaceId: space.id, updateMask: ["merge_rules"], mergeRules: { type: "inherit", rules: [] } })).space!.mergeRules).toEqual({
      type: "inherit",
      rules: [],
    });
    expect(await failure(update({ spaceId: space.id, updateMask: ["merge_rules"] }))).toMatchObject({
      code: "invalid_argument",
      message: "mergeRules: required when the update mask names it",
    });
    expect(
      await failure(
        update({ spaceId: space.id, updateMask: ["merge_rules"], mergeRules: { type: "none", rules: [{ rule: "require_author_to_merge", userIds: [] }] } }),
      ),
    ).toMatchObject({
      code: "invalid_argument",
      message: 'mergeRules.rules: must be empty when type is "none"',
    });
  });
});

describe("DuplicateSpace", () => {
  it("copies the settings next to the original, with a (copy) title kept within 50 characters", async () => {
    const since = new Date(Date.now() - 1_000);
    const original = await createSpace(harness, org, { title: "A".repeat(50), emoji: "📘" });
    const last = await createSpace(harness, org, { title: "last" });
    await update({ spaceId: original.id, updateMask: ["default_level"], defaultLevel: ContentLevel.CONTENT_LEVEL_COMMENT });
    const copy = (await harness.spaces.duplicateSpace({ caller: org.owner.caller, spaceId: original.id })).space!;
    expect(copy.id).not.toBe(original.id);
    expect(copy).toMatchObject({ title: `${"A".repeat(43)} (copy)`, emoji: "📘", defaultLevel: ContentLevel.CONTENT_LEVEL_COMMENT, parentId: "" });
    expect(await titles()).toEqual([original.title, copy.title, last.title]);
    const events = await waitForEvents("content", { since, organizationId: org.organizationId }, { types: ["space.duplicated"] });
    expect(events.find((e) => e.type === "space.duplicated")!.payload).toMatchObject({ spaceId: copy.id, fromSpaceId: original.id });
  });
});

describe("MoveSpace", () => {
  it("orders siblings: between two, to the first place, to the last, into and out of a collection", async () => {
    const [a, b, c] = [
      await createSpace(harness, org, { title: "a" }),
      await createSpace(harness, org, { title: "b" }),
      await createSpace(harness, org, { title: "c" }),
    ];
    expect(await titles()).toEqual(["a", "b", "c"]);
    await move(c.id, { position: { before: { spaceId: b.id } } });
    expect(await titles()).toEqual(["a", "c", "b"]);
    await move(b.id, { position: { before: { spaceId: a.id } } });
    expect(await titles()).toEqual(["b", "a", "c"]);
    await move(b.id, { position: { after: { spaceId: c.id } } });
    expect(await titles()).toEqual(["a", "c", "b"]);
    await move(a.id, { parent: { collectionId: "" } });
    expect(await titles()).toEqual(["c", "b", "a"]);

    const collection = await createCollection(harness, org);
    const inside = await createSpace(harness, org, { title: "inside", parentId: collection.id });
    const moved = (await move(c.id, { parent: { collectionId: collection.id }, position: { before: { spaceId: inside.id } } })).space!;
    expect(moved.parentId).toBe(collection.id);
    const listed = await harness.collections.listCollectionSpaces({ caller: org.owner.caller, collectionId: collection.id, page: undefined });
    expect(listed.spaces.map((s) => s.title)).toEqual(["c", "inside"]);
    // Without a parent, the space goes where its position's sibling is.
    await move(inside.id, { position: { after: { spaceId: b.id } } });
    expect(await topLevelTitles()).toEqual(["b", "inside", "a"]);
  });

  it("rejects positions that name no sibling of the target, both before and after, or itself", async () => {
    const a = await createSpace(harness, org, { title: "a" });
    const b = await createSpace(harness, org, { title: "b" });
    const collection = await createCollection(harness, org);
    const inside = await createSpace(harness, org, { parentId: collection.id });
    expect(await failure(move(a.id, { parent: { collectionId: "" }, position: { before: { spaceId: inside.id } } }))).toMatchObject({
      code: "invalid_argument",
      message: "position.before: no such space among the items of the target top level",
    });
    expect(await failure(move(a.id, { position: { before: { spaceId: b.id }, after: { spaceId: b.id } } }))).toMatchObject({
      message: "position: give either before or after, not both",
    });
    expect(await failure(move(a.id, { position: { after: { spaceId: a.id } } }))).toMatchObject({
      message: "position.after: cannot place an item relative to itself",
    });
    expect(await failure(move(a.id, { parent: { collectionId: "00000000-0000-4000-8000-000000000000" } }))).toMatchObject({
      message: "parent: no such collection in this organization",
    });
  });

  it("places a space relative to a collection sibling", async () => {
    const collection = await createCollection(harness, org, { title: "folder" });
    const space = await createSpace(harness, org, { title: "s" });
    const moved = (await move(space.id, { position: { before: { collectionId: collection.id } } })).space!;
    expect(moved.parentId).toBe("");
  });
});

describe("TransferSpace", () => {
  it("moves a space to another organization (admin of both), optionally into a collection there", async () => {
    const since = new Date(Date.now() - 1_000);
    const target = await createOrganization(harness);
    await createMember(harness, target.organizationId, { email: org.owner.email, role: "admin" });
    const targetCollection = await createCollection(harness, target);
    const space = await createSpace(harness, org, { title: "travelling" });
    const { space: transferred } = await harness.spaces.transferSpace({
      caller: org.owner.caller,
      spaceId: space.id,
      organizationId: target.organizationId,
      parent: { collectionId: targetCollection.id },
    });
    expect(transferred).toMatchObject({ id: space.id, organizationId: target.organizationId, parentId: targetCollection.id });
    expect(await titles()).toEqual([]);
    expect(await titles(target)).toEqual(["travelling"]);
    const events = await waitForEvents("content", { since, organizationId: target.organizationId }, { types: ["space.transferred"] });
    expect(events.find((e) => e.type === "space.transferred")!.payload).toMatchObject({
      spaceId: space.id,
      fromOrganizationId: org.organizationId,
      toOrganizationId: target.organizationId,
    });
  });

  it("needs admin in both organizations and a real change", async () => {
    const space = await createSpace(harness, org);
    const target = await createOrganization(harness);
    const transfer = (organizationId: string, caller = org.owner.caller, parent?: { collectionId: string }) =>
      harness.spaces.transferSpace({ caller, spaceId: space.id, organizationId, parent });
    expect(await errorCode(transfer(target.organizationId))).toBe("not_found");
    await createMember(harness, target.organizationId, { email: org.owner.email, role: "edit" });
    // identity's member.added event drops the cached "not a member" answer.
    await eventually(async () => (await errorCode(transfer(target.organizationId))) === "permission_denied");
    expect(await failure(transfer(""))).toMatchObject({ code: "invalid_argument", message: "organization: is required" });
    expect(await errorCode(transfer(org.organizationId))).toBe("failed_precondition");
    const editor = await createMember(harness, org.organizationId, { role: "edit" });
    await createMember(harness, target.organizationId, { email: editor.email, role: "admin" });
    await eventually(async () => (await errorCode(transfer(target.organizationId, editor.caller))) === "permission_denied");
    // Within the organization, a transfer may change only the collection.
    const collection = await createCollection(harness, org);
    expect((await transfer(org.organizationId, org.owner.caller, { collectionId: collection.id })).space!.parentId).toBe(collection.id);
    const foreign = await createCollection(harness, target);
    expect(await failure(transfer(org.organizationId, org.owner.caller, { collectionId: foreign.id }))).toMatchObject({
      message: "parent: no such collection in the target organization",
    });
  });
});

describe("ListMemberSpaces", () => {
  it("lists the spaces a member can access with their level; admins see anyone's, members only their own", async () => {
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    const open = await createSpace(harness, org, { title: "open" });
    harness.clock.advance(1_000);
    const editable = await createSpace(harness, org, { title: "editable" });
    await update({ spaceId: editable.id, updateMask: ["default_level"], defaultLevel: ContentLevel.CONTENT_LEVEL_EDIT });
    harness.clock.advance(1_000);
    const hidden = await createSpace(harness, org, { title: "hidden" });
    await update({ spaceId: hidden.id, updateMask: ["default_level"], defaultLevel: ContentLevel.CONTENT_LEVEL_NONE });

    const list = (caller = org.owner.caller, userId = reader.userId, order = SortOrder.SORT_ORDER_UNSPECIFIED) =>
      harness.spaces.listMemberSpaces({ caller, organizationId: org.organizationId, userId, page: undefined, order });
    const byAdmin = await list();
    expect(byAdmin.items.map((item) => [item.space!.title, item.level])).toEqual([
      ["editable", ContentLevel.CONTENT_LEVEL_READ],
      ["open", ContentLevel.CONTENT_LEVEL_READ],
    ]);
    // The space's permissions are the caller's (the admin's).
    expect(byAdmin.items[0]!.space!.permissions!.admin).toBe(true);
    const own = await list(reader.caller, reader.userId, SortOrder.SORT_ORDER_ASC);
    expect(own.items.map((item) => item.space!.title)).toEqual(["open", "editable"]);
    expect(own.items[0]!.space!.permissions).toMatchObject({ view: true, admin: false, edit: false });
    expect((await list(org.owner.caller, org.owner.userId)).items.map((item) => [item.space!.title, item.level])).toEqual([
      ["hidden", ContentLevel.CONTENT_LEVEL_ADMIN],
      ["editable", ContentLevel.CONTENT_LEVEL_ADMIN],
      ["open", ContentLevel.CONTENT_LEVEL_ADMIN],
    ]);
    expect(await errorCode(list(reader.caller, org.owner.userId))).toBe("permission_denied");
    expect(await errorCode(list(org.owner.caller, "00000000-0000-4000-8000-000000000000"))).toBe("not_found");
    void open;
  });
});
