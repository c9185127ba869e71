import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  eventually,
  createMember,
  createCollection,
  createOrganization,
  createSpace,
  memberRole,
  type RoleName,
  type TestOrganization,
  type TestUser,
  errorCode,
  testClient,
} from "@imprint/runtime/testing";
import { MemberRole } from "@imprint/proto/identity/v1";
import { GrantTarget, PermissionOriginKind, UserPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import type { Caller } from "@imprint/proto/common/v1";
import { ContentLevel, UpdateSpaceRequest } from "@imprint/proto/content/v1/spaces";
import { UpdateCollectionRequest } from "@imprint/proto/content/v1/collections";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/**
 * docs/permissions.md, through the public RPCs. The membership cache TTL is set far beyond the
 * test's duration, so losing or changing access within seconds can only come from identity's
 * member events.
 */
let harness: ContentHarness;
let org: TestOrganization;
let members: Record<Exclude<RoleName, "admin">, TestUser>;

beforeAll(async () => {
  harness = await startContentHarness({ contentEnv: { MEMBERSHIP_CACHE_TTL_MS: "600000" } });
});
afterAll(() => harness?.stop());
beforeEach(async () => {
  org = await createOrganization(harness);
  members = {
    create: await createMember(harness, org.organizationId, { role: "create" }),
    review: await createMember(harness, org.organizationId, { role: "review" }),
    edit: await createMember(harness, org.organizationId, { role: "edit" }),
    comment: await createMember(harness, org.organizationId, { role: "comment" }),
    read: await createMember(harness, org.organizationId, { role: "read" }),
    guest: await createMember(harness, org.organizationId, { role: "guest" }),
  };
});

const getSpace = (caller: Caller, spaceId: string) => harness.spaces.getSpace({ caller, spaceId, shareKey: "" });
const setSpaceLevel = (spaceId: string, level: ContentLevel) =>
  harness.spaces.updateSpace(UpdateSpaceRequest.fromPartial({ caller: org.owner.caller, spaceId, updateMask: ["default_level"], defaultLevel: level }));
const setCollectionLevel = (collectionId: string, level: ContentLevel) =>
  harness.collections.updateCollection(
    UpdateCollectionRequest.fromPartial({ caller: org.owner.caller, collectionId, updateMask: ["default_level"], defaultLevel: level }),
  );
const visibleTitles = async (caller: Caller) =>
  (await harness.spaces.listSpaces({ caller, organizationId: org.organizationId, page: undefined })).spaces.map((s) => s.title).sort();

describe("permission matrix on a space that inherits (each member gets their organization role)", () => {
  it("reports each role's permissions; guests see nothing", async () => {
    const space = await createSpace(harness, org);
    const permissionsOf = async (caller: Caller) => (await getSpace(caller, space.id)).space!.permissions;
    expect(await permissionsOf(org.owner.caller)).toEqual({
      view: true,
      access: true,
      admin: true,
      viewInviteLinks: true,
      edit: true,
      triggerGitSync: true,
      comment: true,
      merge: true,
      review: true,
      installIntegration: true,
    });
    for (const role of ["create", "review"] as const) {
      expect(await permissionsOf(members[role].caller)).toEqual({
        view: true,
        access: true,
        admin: false,
        viewInviteLinks: false,
        edit: true,
        triggerGitSync: true,
        comment: true,
        merge: true,
        review: true,
        installIntegration: false,
      });
    }
    expect(await permissionsOf(members.edit.caller)).toMatchObject({ view: true, edit: true, comment: true, review: false, merge: false, admin: false });
    expect(await permissionsOf(members.comment.caller)).toMatchObject({ view: true, edit: false, comment: true, admin: false });
    expect(await permissionsOf(members.read.caller)).toMatchObject({ view: true, edit: false, comment: false, admin: false });
    expect(await errorCode(getSpace(members.guest.caller, space.id))).toBe("not_found");
    expect(await visibleTitles(members.guest.caller)).toEqual([]);
  });

  it("lets only space admins change a space, and only creators create content at the top level", async () => {
    const space = await createSpace(harness, org);
    for (const role of ["read", "comment", "edit", "review", "create"] as const) {
      const patch = harness.spaces.updateSpace(
        UpdateSpaceRequest.fromPartial({ caller: members[role].caller, spaceId: space.id, updateMask: ["title"], title: "mine" }),
      );
      expect([role, await errorCode(patch)]).toEqual([role, "permission_denied"]);
    }
    expect(
      await errorCode(
        harness.spaces.updateSpace(UpdateSpaceRequest.fromPartial({ caller: members.guest.caller, spaceId: space.id, updateMask: ["title"], title: "x" })),
      ),
    ).toBe("not_found");
    for (const role of ["read", "comment", "edit", "review", "guest"] as const) {
      expect([role, await errorCode(createSpace(harness, org, { caller: members[role].caller }))]).toEqual([role, "permission_denied"]);
      expect([role, await errorCode(createCollection(harness, org, { caller: members[role].caller }))]).toEqual([role, "permission_denied"]);
    }
    const created = await createSpace(harness, org, { caller: members.create.caller });
    // A creator is capped by their role: not an admin of the space they created.
    expect(created.permissions).toMatchObject({ view: true, edit: true, admin: false });
  });
});

describe("default levels", () => {
  it("caps members by a space's level, and null hides the space from everyone but admins", async () => {
    const capped = await createSpace(harness, org, { title: "capped" });
    await setSpaceLevel(capped.id, ContentLevel.CONTENT_LEVEL_COMMENT);
    expect((await getSpace(members.edit.caller, capped.id)).space!.permissions).toMatchObject({ comment: true, edit: false });
    expect((await getSpace(members.read.caller, capped.id)).space!.permissions).toMatchObject({ view: true, comment: false });

    const hidden = await createSpace(harness, org, { title: "hidden" });
    await setSpaceLevel(hidden.id, ContentLevel.CONTENT_LEVEL_NONE);
    expect(await errorCode(getSpace(members.create.caller, hidden.id))).toBe("not_found");
    expect((await getSpace(org.owner.caller, hidden.id)).space!.permissions!.admin).toBe(true);
    expect(await visibleTitles(members.create.caller)).toEqual(["capped"]);
    expect(await visibleTitles(org.owner.caller)).toEqual(["capped", "hidden"]);
  });

  it("passes a collection's level to what inherits from it; a space's own level still applies inside a hidden collection", async () => {
    const restricted = await createCollection(harness, org, { title: "restricted" });
    await setCollectionLevel(restricted.id, ContentLevel.CONTENT_LEVEL_NONE);
    const inherits = await createSpace(harness, org, { title: "inherits", parentId: restricted.id });
    const opened = await createSpace(harness, org, { title: "opened", parentId: restricted.id });
    await setSpaceLevel(opened.id, ContentLevel.CONTENT_LEVEL_READ);
    expect(await errorCode(harness.collections.getCollection({ caller: members.edit.caller, collectionId: restricted.id }))).toBe("not_found");
    expect(await errorCode(getSpace(members.edit.caller, inherits.id))).toBe("not_found");
    expect((await getSpace(members.edit.caller, opened.id)).space!.permissions).toMatchObject({ view: true, edit: false });
    expect(await visibleTitles(members.edit.caller)).toEqual(["opened"]);
    const collections = await harness.collections.listCollections({
      caller: members.edit.caller,
      organizationId: org.organizationId,
      page: undefined,
      topLevelOnly: false,
    });
    expect(collections.collections).toEqual([]);

    const readOnly = await createCollection(harness, org, { title: "read-only" });
    await setCollectionLevel(readOnly.id, ContentLevel.CONTENT_LEVEL_READ);
    const nested = await createCollection(harness, org, { title: "nested", parentId: readOnly.id });
    const deep = await createSpace(harness, org, { title: "deep", parentId: nested.id });
    expect((await getSpace(members.edit.caller, deep.id)).space!.permissions).toMatchObject({ view: true, edit: false });
    const view = await harness.collections.getCollection({ caller: members.create.caller, collectionId: nested.id });
    expect(view.collection!.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(await errorCode(createSpace(harness, org, { caller: members.create.caller, parentId: nested.id }))).toBe("permission_denied");
  });
});

describe("membership changes through identity's events", () => {
  it("a removed member loses access within seconds; a promoted one gains it", async () => {
    const space = await createSpace(harness, org);
    const member = members.read;
    expect((await getSpace(member.caller, space.id)).space!.permissions!.edit).toBe(false);

    await harness.identity.members.updateMember({
      updateMask: ["role"],
      caller: org.owner.caller,
      organizationId: org.organizationId,
      userId: member.userId,
      role: memberRole("edit"),
    });
    await eventually(async () => (await getSpace(member.caller, space.id)).space!.permissions!.edit, 5_000);

    await harness.identity.members.removeMember({ caller: org.owner.caller, organizationId: org.organizationId, userId: member.userId });
    await eventually(async () => (await errorCode(getSpace(member.caller, space.id))) === "not_found", 5_000);
    expect(await errorCode(harness.spaces.listSpaces({ caller: member.caller, organizationId: org.organizationId, page: undefined }))).toBe("not_found");
  });
});

describe("people's direct grants", () => {
  const grants = () => testClient(UserPermissionServiceService, harness.contentAddress);

  it("give a guest exactly what was granted (a collection's grant reaching inside it), add to a member's role, and go with the membership", async () => {
    const client = grants();
    try {
      const collection = await createCollection(harness, org, { title: "Closed" });
      await setCollectionLevel(collection.id, ContentLevel.CONTENT_LEVEL_NONE);
      const inside = await createSpace(harness, org, { title: "Inside", parentId: collection.id });
      await createSpace(harness, org, { title: "Elsewhere" });
      const { guest, read } = members;
      expect(await visibleTitles(guest.caller)).toEqual([]);

      await client.grantPermissions({
        caller: org.owner.caller,
        target: GrantTarget.GRANT_TARGET_COLLECTION,
        targetId: collection.id,
        userIds: [guest.userId, read.userId],
        teamIds: [],
        role: memberRole("edit"),
      });
      expect(await visibleTitles(guest.caller)).toEqual(["Inside"]);
      expect((await getSpace(guest.caller, inside.id)).space!.permissions!.edit).toBe(true);
      expect((await getSpace(read.caller, inside.id)).space!.permissions!.edit).toBe(true);

      const aggregate = await client.listPermissionsAggregate({
        caller: org.owner.caller,
        target: GrantTarget.GRANT_TARGET_SPACE,
        targetId: inside.id,
        page: undefined,
        role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      });
      const origins = new Map(aggregate.permissions.map((entry) => [entry.userId, entry.origin]));
      expect(origins.get(guest.userId)).toMatchObject({ kind: PermissionOriginKind.PERMISSION_ORIGIN_KIND_USER, targetId: collection.id });
      expect(origins.get(org.owner.userId)?.kind).toBe(PermissionOriginKind.PERMISSION_ORIGIN_KIND_ORGANIZATION);
      // Members the closed collection gives nothing are not listed.
      expect(origins.has(members.edit.userId)).toBe(false);

      // Not a member of the organization: not found, naming the place; nothing granted.
      const stranger = await createOrganization(harness);
      expect(
        await errorCode(
          client.grantPermissions({
            caller: org.owner.caller,
            target: GrantTarget.GRANT_TARGET_SPACE,
            targetId: inside.id,
            userIds: [members.edit.userId, stranger.owner.userId],
            teamIds: [],
            role: memberRole("read"),
          }),
        ),
      ).toBe("not_found");
      expect(
        (await client.listUserPermissions({ caller: org.owner.caller, target: GrantTarget.GRANT_TARGET_SPACE, targetId: inside.id, page: undefined }))
          .permissions,
      ).toEqual([]);

      // Leaving the organization takes the grant away (re-added, the guest sees nothing again).
      await harness.identity.members.removeMember({ caller: org.owner.caller, organizationId: org.organizationId, userId: guest.userId });
      await harness.identity.members.addMember({ organizationId: org.organizationId, email: guest.email, role: MemberRole.MEMBER_ROLE_GUEST });
      await eventually(async () => (await visibleTitles(guest.caller)).length === 0, 5_000);
      const left = await client.listUserPermissions({
        caller: org.owner.caller,
        target: GrantTarget.GRANT_TARGET_COLLECTION,
        targetId: collection.id,
        page: undefined,
      });
      expect(left.permissions.map((permission) => permission.userId)).toEqual([read.userId]);
    } finally {
      client.close();
    }
  });
});
