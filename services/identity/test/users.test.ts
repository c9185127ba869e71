import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember, createOrganization, createOutsider, errorCode, failure, waitForEvents } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/** GetUser and UpdateUser over gRPC: who may see whom, one's own profile, and `user.updated`. */
let identity: TestIdentity;
beforeAll(async () => {
  identity = await startTestIdentity();
});
afterAll(() => identity.stop());

const update = (caller: { userId: string; tokenId: string }, userId: string, fields: { displayName?: string; photoUrl?: string }) =>
  identity.client.users.updateUser({
    caller,
    userId,
    updateMask: [...(fields.displayName !== undefined ? ["display_name"] : []), ...(fields.photoUrl !== undefined ? ["photo_url"] : [])],
    displayName: fields.displayName ?? "",
    photoUrl: fields.photoUrl ?? "",
  });

describe("GetUser", () => {
  it("answers the caller itself for an empty user_id, and users sharing an organization", async () => {
    const org = await createOrganization(identity.clients, { ownerDisplayName: "Olga" });
    const member = await createMember(identity.clients, org.organizationId, { role: "read", displayName: "Mia" });
    const itself = (await identity.client.users.getUser({ caller: member.caller, userId: "" })).user!;
    expect(itself).toMatchObject({ id: member.userId, displayName: "Mia" });
    const owner = (await identity.client.users.getUser({ caller: member.caller, userId: org.owner.userId })).user!;
    expect(owner).toMatchObject({ id: org.owner.userId, displayName: "Olga" });
  });

  it("answers NOT_FOUND for a user sharing no organization, as for one that does not exist", async () => {
    const org = await createOrganization(identity.clients);
    const outsider = await createOutsider(identity.clients);
    const hidden = await failure(identity.client.users.getUser({ caller: org.owner.caller, userId: outsider.userId }));
    const missing = await failure(identity.client.users.getUser({ caller: org.owner.caller, userId: crypto.randomUUID() }));
    expect([hidden.code, missing.code]).toEqual(["not_found", "not_found"]);
    expect(hidden.message).toBe(missing.message);
  });
});

describe("UpdateUser", () => {
  it("changes one's own profile and records user.updated with what changed", async () => {
    const org = await createOrganization(identity.clients);
    const member = await createMember(identity.clients, org.organizationId, { role: "edit", displayName: "Before" });
    const since = new Date(Date.now() - 1_000);
    const changed = (await update(member.caller, member.userId, { displayName: "  After  ", photoUrl: "https://example.com/a.png" })).user!;
    expect(changed).toMatchObject({ displayName: "After", photoUrl: "https://example.com/a.png" });
    // The same values again change nothing and record nothing.
    await update(member.caller, member.userId, { displayName: "After" });
    await update(member.caller, member.userId, { photoUrl: "" });

    // Both updates: the member's own events of the same second (it was just added) count for nothing here.
    const events = await waitForEvents("identity", { since, payload: { userId: member.userId } }, { types: ["user.updated", "user.updated"] });
    const updates = events.filter((event) => event.type === "user.updated");
    expect(updates.map((event) => event.payload)).toEqual([
      {
        userId: member.userId,
        changedFields: ["displayName", "photoURL"],
        changes: { displayName: { from: "Before", to: "After" }, photoURL: { from: null, to: "https://example.com/a.png" } },
      },
      { userId: member.userId, changedFields: ["photoURL"], changes: { photoURL: { from: "https://example.com/a.png", to: null } } },
    ]);
    expect(updates[0]).toMatchObject({ organizationId: null, actor: { userId: member.userId } });
    expect((await identity.client.users.getUser({ caller: org.owner.caller, userId: member.userId })).user).toMatchObject({
      displayName: "After",
      photoUrl: "",
    });
  });

  it("refuses another user's profile: PERMISSION_DENIED when visible, NOT_FOUND when not, and writes nothing", async () => {
    const org = await createOrganization(identity.clients);
    const member = await createMember(identity.clients, org.organizationId, { role: "read", displayName: "Kept" });
    const outsider = await createOutsider(identity.clients);
    const since = new Date(Date.now() - 1_000);
    expect(await errorCode(update(org.owner.caller, member.userId, { displayName: "Hacked" }))).toBe("permission_denied");
    expect(await errorCode(update(org.owner.caller, outsider.userId, { displayName: "Hacked" }))).toBe("not_found");
    expect((await identity.client.users.getUser({ caller: member.caller, userId: "" })).user!.displayName).toBe("Kept");
    // A later, real change of the member's own proves the relay caught up past the refusals.
    await update(member.caller, member.userId, { displayName: "Changed by itself" });
    const events = await waitForEvents("identity", { since, payload: { userId: member.userId } }, { types: ["user.updated"] });
    const updates = events.filter((event) => event.type === "user.updated");
    expect(updates.map((event) => event.payload)).toEqual([
      { userId: member.userId, changedFields: ["displayName"], changes: { displayName: { from: "Kept", to: "Changed by itself" } } },
    ]);
  });

  it("validates every field and the mask, naming the field", async () => {
    const org = await createOrganization(identity.clients);
    const self = org.owner;
    const cases: [Promise<unknown>, RegExp][] = [
      [update(self.caller, self.userId, {}), /^update_mask: must name at least one field/],
      [
        identity.client.users.updateUser({ caller: self.caller, userId: self.userId, updateMask: ["email"], displayName: "", photoUrl: "" }),
        /^update_mask: unknown field "email"/,
      ],
      [update(self.caller, self.userId, { displayName: "   " }), /^display_name: must be at least 1 non-whitespace character/],
      [update(self.caller, self.userId, { displayName: "x".repeat(65) }), /^display_name: must be at most 64 characters/],
      [update(self.caller, self.userId, { photoUrl: "javascript:alert(1)" }), /^photo_url: must be an http\(s\) URL/],
      [update(self.caller, self.userId, { photoUrl: `https://example.com/${"a".repeat(2048)}` }), /^photo_url: must be an http\(s\) URL of at most 2048/],
    ];
    for (const [call, message] of cases) {
      const error = await failure(call);
      expect(error.code).toBe("invalid_argument");
      expect(error.message).toMatch(message);
    }
    expect((await update(self.caller, self.userId, { displayName: "y".repeat(64) })).user!.displayName).toHaveLength(64);
  });
});
