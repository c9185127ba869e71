import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberRole } from "@imprint/proto/identity/v1";
import { UpdateSiteRequest, type Site } from "@imprint/proto/publishing/v1/sites";
import {
  createMember,
  createOrganization,
  createSpace,
  eventually,
  failure,
  readEvents,
  testClient,
  waitForEvents,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import { UpdateSitePublishingAuthRequest } from "@imprint/proto/publishing/v1/site_publishing_auth";
import { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
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

const create = (
  fields: { title?: string; type?: string; visibility?: string; spaceIds?: string[] } = {},
  user: TestUser = org.owner,
  organizationId = org.organizationId,
) =>
  harness.sites
    .createSite({
      caller: user.caller,
      organizationId,
      type: fields.type ?? "",
      title: fields.title ?? "",
      visibility: fields.visibility ?? "",
      spaceIds: fields.spaceIds ?? [],
    })
    .then((answer) => answer.site!);

/** Updates the fields given, and only those (the mask names each of them). */
const update = (siteId: string, fields: Partial<UpdateSiteRequest>, user: TestUser = org.owner) =>
  harness.sites
    .updateSite(UpdateSiteRequest.fromPartial({ caller: user.caller, organizationId: org.organizationId, siteId, updateMask: Object.keys(fields), ...fields }))
    .then((answer) => answer.site!);

const get = (siteId: string, user: TestUser = org.owner, organizationId = org.organizationId) =>
  harness.sites.getSite({ caller: user.caller, organizationId, siteId }).then((answer) => answer.site!);

const list = (fields: { spaceId?: string; title?: string; published?: boolean; types?: string[] } = {}, user: TestUser = org.owner) =>
  harness.sites.listSites({
    caller: user.caller,
    organizationId: org.organizationId,
    page: undefined,
    spaceId: fields.spaceId ?? "",
    title: fields.title ?? "",
    published: fields.published,
    types: fields.types ?? [],
  });

const siteSpaces = (siteId: string, isDefault?: boolean) =>
  harness.siteSpaces
    .listSiteSpaces({ caller: org.owner.caller, organizationId: org.organizationId, siteId, page: undefined, default: isDefault, shareKey: "" })
    .then((answer) => answer.siteSpaces);

describe("sites", () => {
  it("creates an unpublished basic public site, with the given spaces as its site-spaces (the first is the default)", async () => {
    const first = await createSpace(harness, org, { title: "Getting Started" });
    const second = await createSpace(harness, org, { title: "API Reference" });
    const site = await create({ title: "Developer docs", spaceIds: [first.id, second.id] });
    expect(site).toMatchObject({
      organizationId: org.organizationId,
      type: "basic",
      title: "Developer docs",
      visibility: "public",
      published: false,
      agentsContext: "included",
      siteSpaces: 2,
    });
    expect(site.permissions).toMatchObject({ view: true, admin: true, create: true });
    const items = await siteSpaces(site.id);
    expect(items.map((item) => [item.space!.id, item.path, item.default])).toEqual([
      [first.id, "getting-started", true],
      [second.id, "api-reference", false],
    ]);
    expect(site.defaultSiteSpaceId).toBe(items[0]!.id);
    expect((await siteSpaces(site.id, true)).map((item) => item.id)).toEqual([items[0]!.id]);
    expect((await siteSpaces(site.id, false)).map((item) => item.id)).toEqual([items[1]!.id]);
  });

  it("refuses titles outside 2 to 128 characters, unknown types and visibilities, naming the field", async () => {
    expect(await failure(create({ title: "x" }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("title: must be at least 2") });
    expect(await failure(create({ title: "x".repeat(129) }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("title: must be at most 128"),
    });
    expect(await failure(create({ type: "gold" }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("type:") });
    expect(await failure(create({ visibility: "secret" }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("visibility:") });
  });

  it("refuses a space of another organization or an unknown one, naming its position", async () => {
    const foreign = await createSpace(harness, other);
    const own = await createSpace(harness, org);
    expect(await failure(create({ spaceIds: [own.id, foreign.id] }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("spaces[1]:"),
    });
    expect(await failure(create({ spaceIds: [randomUUID()] }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("spaces[0]:") });
  });

  it("lets members read sites, only admins change them, and hides them from other organizations", async () => {
    const site = await create({ title: "Members can read" });
    const seen = await get(site.id, editor);
    expect(seen.permissions).toMatchObject({ view: true, admin: false, create: false, edit: false });
    expect(await failure(update(site.id, { title: "Renamed" }, editor))).toMatchObject({ code: "permission_denied" });
    expect(await failure(create({}, editor))).toMatchObject({ code: "permission_denied" });
    expect(await failure(harness.sites.publishSite({ caller: editor.caller, organizationId: org.organizationId, siteId: site.id }))).toMatchObject({
      code: "permission_denied",
    });
    // Another organization's owner: neither through its own organization nor through this one.
    expect(await failure(get(site.id, other.owner, other.organizationId))).toMatchObject({ code: "not_found" });
    expect(await failure(get(site.id, other.owner))).toMatchObject({ code: "not_found" });
  });

  it("gets sites by id in one call, in the order asked, leaving out unknown ids and other organizations' sites", async () => {
    const space = await createSpace(harness, org);
    const first = await create({ title: "Batch one", spaceIds: [space.id] });
    const second = await create({ title: "Batch two" });
    const foreign = await create({ title: "Batch foreign" }, other.owner, other.organizationId);
    const batch = (siteIds: string[], user: TestUser = org.owner) =>
      harness.sites.batchGetSites({ caller: user.caller, organizationId: org.organizationId, siteIds }).then((answer) => answer.sites);
    const sites = await batch([second.id, randomUUID(), "not-an-id", first.id, foreign.id, second.id]);
    expect(sites.map((site) => site.id)).toEqual([second.id, first.id]);
    expect(sites[1]).toEqual(await get(first.id));
    // As GetSite shows them to the caller: a member reads them, without the admin's rights.
    expect((await batch([first.id], editor))[0]!.permissions).toMatchObject({ view: true, admin: false });
    expect(await batch([])).toEqual([]);
    expect(await failure(batch([first.id], other.owner))).toMatchObject({ code: "not_found" });
    expect(await failure(batch(Array.from({ length: 1001 }, () => randomUUID())))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("site_ids:"),
    });
  });

  it("updates settings, with basename unique per organization and hostname unique in the installation", async () => {
    const site = await create({ title: "Settings" });
    const updated = await update(site.id, {
      title: "Settings renamed",
      visibility: "share-link",
      basename: "handbook",
      adaptiveContentEnabled: true,
      agentsContext: "excluded",
      proxy: "example.com/docs",
      hostname: `docs-${randomUUID().slice(0, 8)}.example.com`,
    });
    expect(updated).toMatchObject({
      title: "Settings renamed",
      visibility: "share-link",
      basename: "handbook",
      adaptiveContentEnabled: true,
      agentsContext: "excluded",
      proxy: "example.com/docs",
    });
    const second = await create({ title: "Second" });
    expect(await failure(update(second.id, { basename: "handbook" }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("basename:"),
    });
    expect(await failure(update(second.id, { hostname: updated.hostname }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("hostname:"),
    });
    // Another organization may use the same basename.
    const elsewhere = await create({ title: "Elsewhere" }, other.owner, other.organizationId);
    const renamed = await harness.sites.updateSite(
      UpdateSiteRequest.fromPartial({
        caller: other.owner.caller,
        organizationId: other.organizationId,
        siteId: elsewhere.id,
        updateMask: ["basename"],
        basename: "handbook",
      }),
    );
    expect(renamed.site!.basename).toBe("handbook");
    // Null (empty) removes the proxy and the hostname.
    expect(await update(site.id, { proxy: "", hostname: "" })).toMatchObject({ proxy: "", hostname: "" });
  });

  it("refuses settings outside their limits and patterns, naming the field", async () => {
    const site = await create({ title: "Limits" });
    const refused = async (fields: Partial<UpdateSiteRequest>, field: string) =>
      expect(await failure(update(site.id, fields))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining(`${field}:`) });
    await refused({ basename: "" }, "basename");
    await refused({ basename: "b".repeat(101) }, "basename");
    await refused({ proxy: "not a proxy" }, "proxy");
    await refused({ proxy: "example.com" }, "proxy");
    await refused({ hostname: "Docs.Example.com" }, "hostname");
    await refused({ hostname: "example.com" }, "hostname");
    await refused({ agentsContext: "maybe" }, "agentsContext");
    await refused({ defaultSiteSpaceId: randomUUID() }, "defaultSiteSpace");
    await refused({ defaultSiteSectionId: randomUUID() }, "defaultSiteSection");
  });

  it("publishes and unpublishes (the only way published changes), keeping the configuration", async () => {
    const space = await createSpace(harness, org);
    const site = await create({ title: "Lifecycle", spaceIds: [space.id] });
    await update(site.id, { basename: `life-${randomUUID().slice(0, 6)}` });
    const published = (await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id })).site!;
    expect(published.published).toBe(true);
    const unpublished = (await harness.sites.unpublishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id })).site!;
    expect(unpublished).toMatchObject({ published: false, basename: published.basename, siteSpaces: 1, defaultSiteSpaceId: published.defaultSiteSpaceId });
    // The changes this test made, in commit order (other events of the site may come between).
    await waitForEvents(
      "publishing",
      { organizationId: org.organizationId, payload: { siteId: site.id } },
      { types: ["site.created", "site_space.created", "site.updated", "site.published", "site.unpublished"] },
    );
  });

  it("prewarms the search of a site's spaces for anyone who sees the site; then nothing is left to do", async () => {
    const space = await createSpace(harness, org);
    const site = await create({ title: "Searched", spaceIds: [space.id] });
    await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id });
    // Content learns of the publication from publishing's events; only published spaces are indexed.
    await eventually(
      async () => (await harness.spaces.getSpace({ caller: org.owner.caller, spaceId: space.id, shareKey: "" })).space?.publishedAddress !== undefined,
    );
    const prewarm = (user: TestUser, siteId = site.id, organizationId = org.organizationId) =>
      harness.sites.prewarmSiteSearch({ caller: user.caller, organizationId, siteId });
    await prewarm(org.owner);
    expect(await prewarm(editor)).toEqual({ updatedSpaces: 0 });
    expect(await failure(prewarm(other.owner))).toMatchObject({ code: "not_found" });
    expect(await failure(prewarm(other.owner, site.id, other.organizationId))).toMatchObject({ code: "not_found", message: "Site not found" });
    expect(await failure(prewarm(org.owner, randomUUID()))).toMatchObject({ code: "not_found", message: "Site not found" });
  });

  it("lists with the space, title, published and type filters, oldest first", async () => {
    const space = await createSpace(harness, org);
    const tag = randomUUID().slice(0, 6);
    const a = await create({ title: `Filter ${tag} A`, spaceIds: [space.id] });
    const b = await create({ title: `Filter ${tag} B`, type: "premium" });
    await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: b.id });
    const ids = (answer: { sites: Site[] }) => answer.sites.map((site) => site.id);
    expect(ids(await list({ title: `filter ${tag}` }))).toEqual([a.id, b.id]);
    expect(ids(await list({ spaceId: space.id }))).toEqual([a.id]);
    expect(ids(await list({ title: tag, published: true }))).toEqual([b.id]);
    expect(ids(await list({ title: tag, published: false }))).toEqual([a.id]);
    expect(ids(await list({ title: tag, types: ["premium"] }))).toEqual([b.id]);
    expect(await failure(list({ types: ["gold"] }))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("type:") });
  });

  it("deletes a site with its site-spaces and share links; deleting again succeeds", async () => {
    const space = await createSpace(harness, org);
    const site = await create({ title: "Doomed", spaceIds: [space.id] });
    await harness.shareLinks.createShareLink({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id, name: "Partners" });
    const remove = () => harness.sites.deleteSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id });
    await remove();
    await remove();
    expect(await failure(get(site.id))).toMatchObject({ code: "not_found" });
    const deleted = await eventually(async () => {
      const [event] = await readEvents("publishing", { organizationId: org.organizationId, payload: { siteId: site.id } }).then((events) =>
        events.filter((e) => e.type === "site.deleted"),
      );
      expect(event).toBeDefined();
      return event!;
    });
    expect(deleted.payload).toMatchObject({ siteId: site.id, spaceIds: [space.id] });
  });

  it("keeps a visitor-auth key per site: admins read it, regenerating replaces it and is announced", async () => {
    const site = await create({ title: "Visitor auth" });
    const scope = { caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id };
    const { auth } = await harness.publishingAuth.getSitePublishingAuth(scope);
    expect(auth).toMatchObject({ backend: "custom", fallbackUrl: "", logoutUrl: "" });
    expect(await failure(harness.publishingAuth.getSitePublishingAuth({ ...scope, caller: editor.caller }))).toMatchObject({ code: "permission_denied" });
    const updated = await harness.publishingAuth.updateSitePublishingAuth(
      UpdateSitePublishingAuthRequest.fromPartial({ ...scope, backend: "custom", updateMask: ["fallback_url"], fallbackUrl: "https://sso.example.com/login" }),
    );
    expect(updated.auth).toMatchObject({ privateKey: auth!.privateKey, fallbackUrl: "https://sso.example.com/login" });
    const regenerated = await harness.publishingAuth.regenerateSitePublishingAuth(scope);
    expect(regenerated.auth!.privateKey).not.toBe(auth!.privateKey);
    expect(regenerated.auth!.fallbackUrl).toBe("https://sso.example.com/login");
    await waitForEvents(
      "publishing",
      { organizationId: org.organizationId, payload: { siteId: site.id } },
      { types: ["site.created", "site.updated", "site.publishing_auth_regenerated"] },
    );
    const another = await create({ title: "Another" });
    const other = await harness.publishingAuth.getSitePublishingAuth({ ...scope, siteId: another.id });
    expect(other.auth!.privateKey).not.toBe(regenerated.auth!.privateKey);
  });
});

describe("organization roles", () => {
  it("follow identity's member events: a demoted member loses the right to change sites, a removed one sees nothing", async () => {
    const admin = await createMember(harness, org.organizationId, { role: "admin" });
    const site = await create({ title: "Roles follow events" });
    expect((await update(site.id, { title: "Changed by an admin" }, admin)).title).toBe("Changed by an admin");
    // Cached for ten minutes in this harness: only the event can make the change show.
    await harness.identity.members.updateMember({
      updateMask: ["role"],
      caller: org.owner.caller,
      organizationId: org.organizationId,
      userId: admin.userId,
      role: MemberRole.MEMBER_ROLE_READ,
    });
    await eventually(async () => (await failure(update(site.id, { title: "Changed by an admin" }, admin))).code === "permission_denied");
    expect((await get(site.id, admin)).title).toBe("Changed by an admin");
    await harness.identity.members.removeMember({ caller: org.owner.caller, organizationId: org.organizationId, userId: admin.userId });
    await eventually(async () => (await failure(get(site.id, admin))).code === "not_found");
  });
});

describe("site insights", () => {
  it("counts the reader's batch of page views once, by its batch id, and each event of an unbatched report by its own", async () => {
    const insights = testClient(SiteInsightsServiceService, harness.publishingAddress);
    try {
      const view = {
        id: "",
        organizationId: org.organizationId,
        siteId: randomUUID(),
        type: "page_view",
        siteSpaceId: "ss",
        spaceId: "s",
        pageId: "p",
        rating: "",
        occurredAt: new Date(),
      };
      const batchId = randomUUID();
      const batch = { caller: undefined, batchId, events: [view, view, view] };
      expect(await insights.trackSiteEvents(batch)).toEqual({ counted: 3 });
      expect(await insights.trackSiteEvents(batch)).toEqual({ counted: 0 });
      // Without a batch id, every event needs its own, and is counted once.
      expect((await failure(insights.trackSiteEvents({ ...batch, batchId: "" }))).message).toContain("events[0].id");
      const single = { ...view, id: randomUUID() };
      expect(await insights.trackSiteEvents({ caller: undefined, batchId: "", events: [single, single] })).toEqual({ counted: 1 });
      expect((await failure(insights.trackSiteEvents({ ...batch, batchId: "not-a-uuid" }))).message).toContain("batchId");
    } finally {
      insights.close();
    }
  });
});
