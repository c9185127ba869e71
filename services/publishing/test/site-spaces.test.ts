import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpdateShareLinkRequest } from "@imprint/proto/publishing/v1/share_links";
import { UpdateSiteSpaceRequest } from "@imprint/proto/publishing/v1/site_spaces";
import { UpdateSiteRequest } from "@imprint/proto/publishing/v1/sites";
import { createMember, createOrganization, createSpace, eventually, failure, readEvents, type TestOrganization, type TestUser } from "@imprint/runtime/testing";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

let harness: PublishingHarness;
let org: TestOrganization;
let other: TestOrganization;
let editor: TestUser;

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
  other = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit" });
});
afterAll(() => harness?.stop());

const scope = (siteId: string, user: TestUser = org.owner) => ({ caller: user.caller, organizationId: org.organizationId, siteId });

async function newSite(): Promise<string> {
  const { site } = await harness.sites.createSite({
    caller: org.owner.caller,
    organizationId: org.organizationId,
    type: "",
    title: "Site spaces",
    visibility: "",
    spaceIds: [],
  });
  return site!.id;
}

const add = (siteId: string, spaceId: string, user: TestUser = org.owner) =>
  harness.siteSpaces.addSiteSpace({ ...scope(siteId, user), spaceId, sectionId: "", draft: false }).then((answer) => answer.siteSpace!);

/** Updates the fields given, and only those (the mask names each of them). */
const update = (siteId: string, siteSpaceId: string, fields: Partial<UpdateSiteSpaceRequest>) =>
  harness.siteSpaces
    .updateSiteSpace(UpdateSiteSpaceRequest.fromPartial({ ...scope(siteId), siteSpaceId, updateMask: Object.keys(fields), ...fields }))
    .then((answer) => answer.siteSpace!);

const list = (siteId: string, isDefault?: boolean) =>
  harness.siteSpaces.listSiteSpaces({ ...scope(siteId), page: undefined, default: isDefault, shareKey: "" }).then((answer) => answer.siteSpaces);

const move = (siteId: string, siteSpaceId: string, position: { before?: string; after?: string }) =>
  harness.siteSpaces
    .moveSiteSpace({ ...scope(siteId), siteSpaceId, beforeSiteSpaceId: position.before ?? "", afterSiteSpaceId: position.after ?? "" })
    .then((answer) => answer.siteSpace!);

describe("site-spaces", () => {
  it("adds spaces at the end at free paths from their titles; the first is the default", async () => {
    const siteId = await newSite();
    const space = await createSpace(harness, org, { title: "Guides" });
    const first = await add(siteId, space.id);
    const second = await add(siteId, space.id);
    expect([first.path, first.default, second.path, second.default]).toEqual(["guides", true, "guides-2", false]);
    expect(first.space).toMatchObject({ id: space.id, title: "Guides" });
    expect(first.site).toMatchObject({ siteId, organizationId: org.organizationId, published: false });
  });

  it("refuses an unknown section, another organization's space and non-admins", async () => {
    const siteId = await newSite();
    const space = await createSpace(harness, org);
    expect(await failure(harness.siteSpaces.addSiteSpace({ ...scope(siteId), spaceId: space.id, sectionId: randomUUID(), draft: false }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("sectionId:"),
    });
    expect(await failure(add(siteId, (await createSpace(harness, other)).id))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("spaceId:"),
    });
    expect(await failure(add(siteId, space.id, editor))).toMatchObject({ code: "permission_denied" });
    expect(
      await failure(
        harness.siteSpaces.listSiteSpaces({ caller: other.owner.caller, organizationId: org.organizationId, siteId, page: undefined, shareKey: "" }),
      ),
    ).toMatchObject({ code: "not_found" });
  });

  it("changes the path (unique at its level), the condition (checked, null removes it) and the space", async () => {
    const siteId = await newSite();
    const a = await add(siteId, (await createSpace(harness, org, { title: "Alpha" })).id);
    const b = await add(siteId, (await createSpace(harness, org, { title: "Beta" })).id);
    expect(await update(siteId, a.id, { path: "start" })).toMatchObject({ path: "start" });
    expect(await failure(update(siteId, b.id, { path: "start" }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("path:") });
    expect(await failure(update(siteId, b.id, { path: "" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("path: must be at least 1"),
    });
    expect(await failure(update(siteId, b.id, { path: "p".repeat(101) }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("path: must be at most 100"),
    });
    const condition = 'visitor.claims.plan === "pro"';
    expect(await update(siteId, b.id, { condition })).toMatchObject({ condition });
    const refused = await failure(update(siteId, b.id, { condition: "visitor.claims.plan ===" }));
    expect(refused).toMatchObject({ code: "invalid_argument", message: expect.stringMatching(/^condition: .*\(at character \d+\)/) });
    expect(await failure(update(siteId, b.id, { condition: "visitor.constructor" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("condition:"),
    });
    expect(await update(siteId, b.id, {})).toMatchObject({ condition });
    expect(await update(siteId, b.id, { condition: "" })).toMatchObject({ condition: "" });
    const gamma = await createSpace(harness, org, { title: "Gamma" });
    expect((await update(siteId, b.id, { spaceId: gamma.id })).space!.id).toBe(gamma.id);
    await eventually(async () => {
      const events = await readEvents("publishing", { organizationId: org.organizationId, payload: { siteSpaceId: b.id } });
      expect(
        events.filter((event) => event.type === "site_space.updated").map((event) => (event.payload as { changedFields: string[] }).changedFields),
      ).toEqual([["condition"], ["condition"], ["spaceId"]]);
      return true;
    });
  });

  it("moves before and after siblings, or to the end", async () => {
    const siteId = await newSite();
    const space = await createSpace(harness, org);
    const [a, b, c] = [await add(siteId, space.id), await add(siteId, space.id), await add(siteId, space.id)];
    const order = async () => (await list(siteId)).map((item) => item.id);
    await move(siteId, c.id, { before: a.id });
    expect(await order()).toEqual([c.id, a.id, b.id]);
    await move(siteId, c.id, { after: b.id });
    expect(await order()).toEqual([a.id, b.id, c.id]);
    await move(siteId, a.id, {});
    expect(await order()).toEqual([b.id, c.id, a.id]);
    expect(await failure(move(siteId, a.id, { before: randomUUID() }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("position.before.siteSpace:"),
    });
    expect(await failure(move(siteId, a.id, { before: b.id, after: c.id }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("position:"),
    });
  });

  it("keeps a default: deleting the default makes the first remaining one the default; deleting twice succeeds", async () => {
    const siteId = await newSite();
    const space = await createSpace(harness, org);
    const [a, b] = [await add(siteId, space.id), await add(siteId, space.id)];
    await harness.sites.updateSite(UpdateSiteRequest.fromPartial({ ...scope(siteId), updateMask: ["default_site_space_id"], defaultSiteSpaceId: b.id }));
    expect((await list(siteId, true)).map((item) => item.id)).toEqual([b.id]);
    await harness.siteSpaces.deleteSiteSpace({ ...scope(siteId), siteSpaceId: b.id });
    await harness.siteSpaces.deleteSiteSpace({ ...scope(siteId), siteSpaceId: b.id });
    expect((await list(siteId)).map((item) => [item.id, item.default])).toEqual([[a.id, true]]);
    await harness.siteSpaces.deleteSiteSpace({ ...scope(siteId), siteSpaceId: a.id });
    const site = (await harness.sites.getSite(scope(siteId))).site!;
    expect(site).toMatchObject({ siteSpaces: 0, defaultSiteSpaceId: "" });
    expect(await list(siteId, true)).toEqual([]);
  });
});

describe("share links", () => {
  it("creates active links with distinct random keys, renames and deactivates them, deletes them", async () => {
    const siteId = await newSite();
    const first = (await harness.shareLinks.createShareLink({ ...scope(siteId), name: "Partners" })).shareLink!;
    const second = (await harness.shareLinks.createShareLink({ ...scope(siteId), name: "" })).shareLink!;
    expect(first).toMatchObject({ name: "Partners", active: true, siteId });
    expect(first.key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(first.key).not.toBe(second.key);
    const changed = (
      await harness.shareLinks.updateShareLink(
        UpdateShareLinkRequest.fromPartial({ ...scope(siteId), shareLinkId: first.id, updateMask: ["active", "name"], active: false, name: "Old partners" }),
      )
    ).shareLink!;
    expect(changed).toMatchObject({ active: false, name: "Old partners", key: first.key });
    const listed = await harness.shareLinks.listShareLinks({ ...scope(siteId), page: undefined, search: "" });
    expect(listed.shareLinks.map((link) => link.id)).toEqual([first.id, second.id]);
    expect((await harness.shareLinks.listShareLinks({ ...scope(siteId), page: undefined, search: "old" })).shareLinks.map((link) => link.id)).toEqual([
      first.id,
    ]);
    expect((await harness.shareLinks.listShareLinks({ ...scope(siteId), page: undefined, search: second.key })).shareLinks.map((link) => link.id)).toEqual([
      second.id,
    ]);
    // Reads through a share key take only an active link's.
    await harness.siteSpaces.addSiteSpace({ ...scope(siteId), spaceId: (await createSpace(harness, org)).id, sectionId: "", draft: false });
    const through = await harness.siteSpaces.listSiteSpaces({ ...scope(siteId), page: undefined, shareKey: second.key });
    expect(through.siteSpaces.map((item) => item.shareKey)).toEqual([second.key]);
    expect(await failure(harness.siteSpaces.listSiteSpaces({ ...scope(siteId), page: undefined, shareKey: first.key }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("shareKey:"),
    });
    await harness.shareLinks.deleteShareLink({ ...scope(siteId), shareLinkId: first.id });
    await harness.shareLinks.deleteShareLink({ ...scope(siteId), shareLinkId: first.id });
    expect((await harness.shareLinks.listShareLinks({ ...scope(siteId), page: undefined, search: "" })).shareLinks.map((link) => link.id)).toEqual([second.id]);
  });

  it("refuses names over 50 characters, non-admins and other organizations", async () => {
    const siteId = await newSite();
    expect(await failure(harness.shareLinks.createShareLink({ ...scope(siteId), name: "n".repeat(51) }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("name: must be at most 50"),
    });
    expect(await failure(harness.shareLinks.createShareLink({ ...scope(siteId, editor), name: "x" }))).toMatchObject({ code: "permission_denied" });
    expect(await failure(harness.shareLinks.listShareLinks({ ...scope(siteId, editor), page: undefined, search: "" }))).toMatchObject({
      code: "permission_denied",
    });
    expect(
      await failure(harness.shareLinks.createShareLink({ caller: other.owner.caller, organizationId: org.organizationId, siteId, name: "x" })),
    ).toMatchObject({ code: "not_found" });
  });
});
