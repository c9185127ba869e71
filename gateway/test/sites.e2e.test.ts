import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call, gitbookClient, role } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;
let editor: TestUser;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  other = await createOrganization(stack);
  editor = await createMember(stack, org, { role: "edit" });
});
afterAll(() => stack?.stop());

const sitesPath = (organizationId = org.organizationId) => `/v1/orgs/${organizationId}/sites`;
// GitBook's client types its enums; the values are the strings themselves.
const e = <T>(value: string) => value as T;

async function newSite(title = "Docs", spaces: string[] = []) {
  return (await org.owner.api.orgs.createSite(org.organizationId, { title, spaces })).data;
}

describe("sites", () => {
  it("creates (201 + Location), gets, lists and deletes sites with GitBook's client", async () => {
    const space = await createSpace(stack, org, { title: "User Guide" });
    const response = await call(stack, "POST", sitesPath(), { token: org.owner.token, json: { title: "Handbook", spaces: [space.id] } });
    expect(response.status).toBe(201);
    const site = response.body;
    expect(response.headers.get("location")).toBe(`${stack.baseUrl}${sitesPath()}/${site.id}`);
    expect(site).toMatchObject({
      object: "site",
      type: "basic",
      appliedType: "basic",
      title: "Handbook",
      visibility: "public",
      published: false,
      siteSpaces: 1,
      defaultLevel: "inherit",
      adaptiveContent: { enabled: false },
      features: [],
      permissions: { view: true, admin: true },
      urls: { location: `${stack.baseUrl}${sitesPath()}/${site.id}` },
    });
    expect(site.urls.published).toBeUndefined();
    expect((await org.owner.api.orgs.getSiteById(org.organizationId, site.id)).data.id).toBe(site.id);
    const listed = await org.owner.api.orgs.listSites(org.organizationId, { space: space.id });
    expect(listed.data.items.map((item) => item.id)).toEqual([site.id]);
    expect((await org.owner.api.orgs.deleteSiteById(org.organizationId, site.id)).status).toBe(204);
    expect((await call(stack, "DELETE", `${sitesPath()}/${site.id}`, { token: org.owner.token })).status).toBe(204);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}`, { token: org.owner.token })).status).toBe(404);
  });

  it("filters by title, published and type (repeated or comma-separated)", async () => {
    const tag = `t${Date.now().toString(36)}`;
    const a = await newSite(`${tag} one`);
    const b = (await org.owner.api.orgs.createSite(org.organizationId, { title: `${tag} two`, type: e("premium") })).data;
    await org.owner.api.orgs.publishSite(org.organizationId, b.id);
    const ids = async (query: string): Promise<string[]> =>
      ((await call(stack, "GET", `${sitesPath()}?title=${tag}${query}`, { token: org.owner.token })).body.items as { id: string }[]).map((item) => item.id);
    expect(await ids("")).toEqual([a.id, b.id]);
    expect(await ids("&published=true")).toEqual([b.id]);
    expect(await ids("&published=false")).toEqual([a.id]);
    expect(await ids("&type=premium&type=ultimate")).toEqual([b.id]);
    expect(await ids("&type=basic,ultimate")).toEqual([a.id]);
    const refused = await call(stack, "GET", `${sitesPath()}?type=gold`, { token: org.owner.token });
    expect([refused.status, refused.body.error.message]).toEqual([400, expect.stringContaining("type:")]);
  });

  it("updates settings; publishes and unpublishes, keeping the configuration; urls.published only while published", async () => {
    const site = await newSite("Settings");
    const basename = `guide-${Date.now().toString(36)}`;
    const updated = await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, {
      title: "Settings renamed",
      visibility: e("unlisted"),
      basename,
      adaptiveContent: { enabled: true },
      proxy: "example.com/docs",
    });
    expect(updated.data).toMatchObject({
      title: "Settings renamed",
      visibility: "unlisted",
      basename,
      adaptiveContent: { enabled: true },
      proxy: { origin: "example.com/docs" },
    });
    const agents = await call(stack, "PATCH", `${sitesPath()}/${site.id}`, { token: org.owner.token, json: { agentsContext: "excluded", proxy: null } });
    expect(agents.body).toMatchObject({ agentsContext: "excluded" });
    expect(agents.body.proxy).toBeUndefined();
    const published = (await org.owner.api.orgs.publishSite(org.organizationId, site.id)).data as { published: boolean; urls: { published?: string } };
    expect(published.published).toBe(true);
    expect(published.urls.published).toBe(`${stack.baseUrl}/sites/${org.organizationId}/${basename}/`);
    const unpublished = (await org.owner.api.orgs.unpublishSite(org.organizationId, site.id)).data;
    expect(unpublished).toMatchObject({ published: false, basename, title: "Settings renamed", visibility: "unlisted" });
    expect(unpublished.urls.published).toBeUndefined();
    const hostname = `docs-${Date.now().toString(36)}.example.com`;
    const withHost = await call(stack, "PATCH", `${sitesPath()}/${site.id}`, { token: org.owner.token, json: { hostname } });
    expect(withHost.body.hostname).toBe(hostname);
    const second = await newSite("Second");
    const taken = await call(stack, "PATCH", `${sitesPath()}/${second.id}`, { token: org.owner.token, json: { hostname } });
    expect([taken.status, taken.body.error.message]).toEqual([400, "hostname: is already used by another site"]);
  });

  it("answers 400 naming the field for every limit", async () => {
    const site = await newSite("Limits");
    const patch = (json: unknown) => call(stack, "PATCH", `${sitesPath()}/${site.id}`, { token: org.owner.token, json });
    const cases: [unknown, string][] = [
      [{ title: "x" }, "title: must be at least 2 characters"],
      [{ title: "x".repeat(129) }, "title: must be at most 128 characters"],
      [{ basename: "" }, "basename: must be at least 1 character"],
      [{ basename: "b".repeat(101) }, "basename: must be at most 100 characters"],
      [{ proxy: "nope" }, "proxy:"],
      [{ hostname: "localhost" }, "hostname:"],
      [{ visibility: "secret" }, "visibility:"],
      [{ agentsContext: "maybe" }, "agentsContext:"],
      [{ defaultLevel: "admin" }, "defaultLevel:"],
      [{ adaptiveContent: { enabled: "yes" } }, "adaptiveContent.enabled:"],
      [{ defaultSiteSection: "s1" }, "defaultSiteSection:"],
    ];
    for (const [json, message] of cases) {
      const response = await patch(json);
      expect([response.status, response.body.error.message], JSON.stringify(json)).toEqual([400, expect.stringContaining(message)]);
    }
    const create = await call(stack, "POST", sitesPath(), { token: org.owner.token, json: { title: "x".repeat(129) } });
    expect([create.status, create.body.error.message]).toEqual([400, "title: must be at most 128 characters"]);
    const basenameTwice = await newSite("Twice");
    await patch({ basename: "shared-name" });
    const clash = await call(stack, "PATCH", `${sitesPath()}/${basenameTwice.id}`, { token: org.owner.token, json: { basename: "shared-name" } });
    expect([clash.status, clash.body.error.message]).toEqual([400, "basename: is already used by another site of this organization"]);
  });

  it("hides sites from other organizations (404) and lets only admins change them (403)", async () => {
    const site = await newSite("Private");
    const paths: [string, string, unknown?][] = [
      ["GET", `${sitesPath()}/${site.id}`],
      ["PATCH", `${sitesPath()}/${site.id}`, { title: "Mine" }],
      ["POST", `${sitesPath()}/${site.id}/publish`],
      ["GET", `${sitesPath()}/${site.id}/site-spaces`],
      ["GET", `${sitesPath()}/${site.id}/share-links`],
      ["POST", `${sitesPath()}/${site.id}/share-links`, { name: "x" }],
      ["GET", sitesPath()],
    ];
    for (const [method, path, json] of paths) {
      expect((await call(stack, method, path, { token: other.owner.token, json })).status, `${method} ${path}`).toBe(404);
    }
    // Its own organization's path does not reach it either.
    expect((await call(stack, "GET", `${sitesPath(other.organizationId)}/${site.id}`, { token: other.owner.token })).status).toBe(404);
    const seen = await editor.api.orgs.getSiteById(org.organizationId, site.id);
    expect(seen.data.permissions).toMatchObject({ view: true, admin: false, edit: false });
    for (const [method, path, json] of [
      ["PATCH", `${sitesPath()}/${site.id}`, { title: "Mine" }],
      ["POST", `${sitesPath()}/${site.id}/publish`],
      ["POST", `${sitesPath()}/${site.id}/unpublish`],
      ["DELETE", `${sitesPath()}/${site.id}`],
      ["POST", sitesPath(), { title: "Mine" }],
      ["POST", `${sitesPath()}/${site.id}/share-links`, { name: "x" }],
    ] as [string, string, unknown?][]) {
      expect((await call(stack, method, path, { token: editor.token, json })).status, `${method} ${path}`).toBe(403);
    }
  });
});

describe("site-spaces", () => {
  it("adds, lists (default filter), updates, moves and deletes site-spaces with GitBook's client", async () => {
    const guide = await createSpace(stack, org, { title: "Guide" });
    const api = await createSpace(stack, org, { title: "API" });
    const site = await newSite("Structure", [guide.id]);
    const added = await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: api.id });
    expect(added.status).toBe(201);
    expect(added.data).toMatchObject({ object: "site-space", path: "api", title: "API", default: false, draft: false, space: { id: api.id, object: "space" } });
    const all = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    expect(all.map((item) => [item.space.id, item.default])).toEqual([
      [guide.id, true],
      [api.id, false],
    ]);
    expect((await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id, { default: true })).data.items.map((item) => item.space.id)).toEqual([
      guide.id,
    ]);
    expect((await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id, { default: false })).data.items.map((item) => item.space.id)).toEqual([
      api.id,
    ]);

    const condition = 'visitor.claims.plan == "pro"';
    const updated = await org.owner.api.orgs.updateSiteSpaceById(org.organizationId, site.id, added.data.id, { path: "reference", condition });
    expect(updated.data).toMatchObject({ path: "reference", condition });
    const cleared = await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${added.data.id}`, { token: org.owner.token, json: { condition: null } });
    expect(cleared.body.condition).toBeUndefined();
    const badCondition = await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${added.data.id}`, {
      token: org.owner.token,
      json: { condition: "visitor.claims.plan ==" },
    });
    expect([badCondition.status, badCondition.body.error.message]).toEqual([400, expect.stringMatching(/^condition: .*at character \d+/)]);
    const samePath = await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${added.data.id}`, {
      token: org.owner.token,
      json: { path: all[0]!.path },
    });
    expect([samePath.status, samePath.body.error.message]).toEqual([400, expect.stringContaining("path:")]);

    const moved = await org.owner.api.orgs.moveSiteSpace(org.organizationId, site.id, added.data.id, {
      position: { before: { type: "site-space", siteSpace: all[0]!.id } },
    });
    expect(moved.data.id).toBe(added.data.id);
    expect((await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items.map((item) => item.id)).toEqual([added.data.id, all[0]!.id]);

    // Published: urls.published under the site's address, and through an active share link's key when one is given.
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const plain = await call(stack, "GET", `${sitesPath()}/${site.id}/site-spaces`, { token: org.owner.token });
    expect(plain.body.items[0].urls.published).toBe(`${stack.baseUrl}/sites/${org.organizationId}/${site.id}/reference/`);
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "Readers" })).data;
    const key = link.urls.published!.split("/").at(-2)!;
    const published = await call(stack, "GET", `${sitesPath()}/${site.id}/site-spaces?shareKey=${key}`, { token: org.owner.token });
    expect(published.body.items[0].urls.published).toBe(`${stack.baseUrl}/sites/${org.organizationId}/${site.id}/${key}/reference/`);
    const structure = await call(stack, "GET", `${sitesPath()}/${site.id}/structure?shareKey=${key}`, { token: org.owner.token });
    expect(structure.body.structure[0].urls.published).toBe(published.body.items[0].urls.published);
    // A deactivated link's key no longer resolves, nor does one that never existed.
    await org.owner.api.orgs.updateSiteShareLinkById(org.organizationId, site.id, link.id, { active: false });
    for (const path of [`site-spaces?shareKey=${key}`, `structure?shareKey=${key}`, "site-spaces?shareKey=abc"]) {
      const refused = await call(stack, "GET", `${sitesPath()}/${site.id}/${path}`, { token: org.owner.token });
      expect([refused.status, refused.body.error.message], path).toEqual([400, "shareKey: is not the key of an active share link of this site"]);
    }

    // Deleting the default makes the remaining one the default.
    expect((await org.owner.api.orgs.deleteSiteSpaceById(org.organizationId, site.id, all[0]!.id)).status).toBe(204);
    expect((await call(stack, "DELETE", `${sitesPath()}/${site.id}/site-spaces/${all[0]!.id}`, { token: org.owner.token })).status).toBe(204);
    const remaining = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    expect(remaining.map((item) => [item.id, item.default])).toEqual([[added.data.id, true]]);
  });

  it("answers the site's structure (its site-spaces) and sorts it with GitBook's client", async () => {
    const space = await createSpace(stack, org, { title: "Sorted" });
    const site = await newSite("Structure sort", [space.id, space.id, space.id]);
    const structure = (await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data;
    expect(structure.type).toBe("siteSpaces");
    const ids = structure.structure.map((item) => item.id);
    expect(structure.structure.map((item) => (item as { path: string }).path)).toEqual(["sorted", "sorted-2", "sorted-3"]);
    const sorted = await org.owner.api.orgs.sortSiteStructure(org.organizationId, site.id, {
      item: { type: "site-space", id: ids[2]! },
      position: { before: { type: "site-space", id: ids[0]! } },
    });
    expect(sorted.status).toBe(200);
    expect((sorted.data as { id: string }).id).toBe(ids[2]);
    const after = (await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data.structure.map((item) => item.id);
    expect(after).toEqual([ids[2], ids[0], ids[1]]);
    const toEnd = await call(stack, "PATCH", `${sitesPath()}/${site.id}/structure/sort`, {
      token: org.owner.token,
      json: { item: { type: "site-space", id: ids[2] }, position: {} },
    });
    expect(toEnd.status).toBe(200);
    expect((await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data.structure.map((item) => item.id)).toEqual([ids[0], ids[1], ids[2]]);
    const section = await call(stack, "PATCH", `${sitesPath()}/${site.id}/structure/sort`, {
      token: org.owner.token,
      json: { item: { type: "site-section", id: "s1" }, position: {} },
    });
    expect(section.status).toBe(404);
    const badPosition = await call(stack, "PATCH", `${sitesPath()}/${site.id}/structure/sort`, {
      token: org.owner.token,
      json: { item: { type: "site-space", id: ids[0] }, position: { after: { type: "site-space", id: "nope" } } },
    });
    expect([badPosition.status, badPosition.body.error.message]).toEqual([400, expect.stringContaining("position.after.id:")]);
    const badType = await call(stack, "PATCH", `${sitesPath()}/${site.id}/structure/sort`, {
      token: org.owner.token,
      json: { item: { type: "page", id: ids[0] }, position: {} },
    });
    expect([badType.status, badType.body.error.message]).toEqual([400, expect.stringContaining("item.type:")]);
    expect(
      (
        await call(stack, "PATCH", `${sitesPath()}/${site.id}/structure/sort`, {
          token: editor.token,
          json: { item: { type: "site-space", id: ids[0] }, position: {} },
        })
      ).status,
    ).toBe(403);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/structure`, { token: other.owner.token })).status).toBe(404);
  });

  it("refuses an unknown section, another organization's space, unsupported fields and non-admins", async () => {
    const space = await createSpace(stack, org);
    const site = await newSite("Refusals");
    const add = (json: unknown, token = org.owner.token) => call(stack, "POST", `${sitesPath()}/${site.id}/site-spaces`, { token, json });
    const section = await add({ spaceId: space.id, sectionId: "section-1" });
    expect([section.status, section.body.error.message]).toEqual([400, expect.stringContaining("sectionId:")]);
    const foreign = await add({ spaceId: (await createSpace(stack, other)).id });
    expect([foreign.status, foreign.body.error.message]).toEqual([400, expect.stringContaining("spaceId:")]);
    const missing = await add({});
    expect([missing.status, missing.body.error.message]).toEqual([400, expect.stringContaining("spaceId")]);
    const draft = await add({ spaceId: space.id, draft: "yes" });
    expect([draft.status, draft.body.error.message]).toEqual([400, expect.stringContaining("draft")]);
    expect((await add({ spaceId: space.id }, editor.token)).status).toBe(403);
  });
});

describe("duplicateSiteSpace", () => {
  it("copies the space: beside it at the root, into a new section after a section it is alone in, as a variant otherwise", async () => {
    const guide = await createSpace(stack, org, { title: "Handbook" });
    const site = await newSite("Duplicated", [guide.id]);
    const [root] = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    const copied = await org.owner.api.orgs.duplicateSiteSpace(org.organizationId, site.id, root!.id, {});
    expect(copied.status).toBe(201);
    expect(copied.headers.get("location")).toMatch(new RegExp(`/v1/orgs/${org.organizationId}/sites/${site.id}/site-spaces/${copied.data.id}$`));
    expect(copied.data).toMatchObject({ object: "site-space", title: "Handbook (copy)", path: "handbook-copy", draft: false, default: false });
    expect(copied.data.space.id).not.toBe(guide.id);
    expect((await org.owner.api.spaces.getSpaceById(copied.data.space.id)).data.title).toBe("Handbook (copy)");

    // A site-space alone in its section: the copy opens a new section right after it, as a draft when asked.
    const api = await createSpace(stack, org, { title: "API" });
    const section = (await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: api.id, title: "API reference", icon: "code" })).data;
    const tail = await createSpace(stack, org, { title: "Changelog" });
    await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: tail.id });
    const alone = section.siteSpaces[0]!;
    const drafted = (await org.owner.api.orgs.duplicateSiteSpace(org.organizationId, site.id, alone.id, { draft: true })).data;
    expect(drafted).toMatchObject({ title: "API (copy)", draft: true });
    const sections = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items;
    expect(sections.map((item) => [item.title, item.siteSpaces.map((siteSpace) => siteSpace.id)])).toEqual([
      ["Duplicated", [root!.id, copied.data.id]],
      ["API reference", [alone.id]],
      ["API (copy)", [drafted.id]],
      ["Changelog", [expect.any(String)]],
    ]);
    expect(sections[2]).toMatchObject({ id: drafted.section, draft: true, icon: "code" });

    // A site-space among others: the copy joins them (a variant of the same section).
    const variant = (await org.owner.api.orgs.duplicateSiteSpace(org.organizationId, site.id, copied.data.id, {})).data;
    expect(variant).toMatchObject({ section: sections[0]!.id, title: "Handbook (copy) (copy)" });
  });

  it("refuses a member without the admin role (403), another organization (404), a missing site-space (404) and a malformed body (400)", async () => {
    const space = await createSpace(stack, org, { title: "Refused" });
    const site = await newSite("Refusing copies", [space.id]);
    const [siteSpace] = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    const path = `${sitesPath()}/${site.id}/site-spaces/${siteSpace!.id}/duplicate`;
    const asEditor = await call(stack, "POST", path, { token: editor.token, json: {} });
    expect(asEditor.status).toBe(403);
    expect((await call(stack, "POST", path, { token: other.owner.token, json: {} })).status).toBe(404);
    const missing = await call(stack, "POST", `${sitesPath()}/${site.id}/site-spaces/${site.id}/duplicate`, { token: org.owner.token, json: {} });
    expect(missing.status).toBe(404);
    const malformed = await call(stack, "POST", path, { token: org.owner.token, json: { draft: "yes" } });
    expect([malformed.status, malformed.body.error.message]).toEqual([400, expect.stringMatching(/^draft: /)]);
    // Nothing was copied by the refusals.
    expect((await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items).toHaveLength(1);
  });
});

describe("sections", () => {
  it("turns a site's root into its first section, adds sections with their first site-space, and answers the structure by sections", async () => {
    const guide = await createSpace(stack, org, { title: "Guide" });
    const api = await createSpace(stack, org, { title: "API" });
    const site = await newSite("Sectioned", [guide.id]);
    const [rootSpace] = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    const created = await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: api.id, title: "API reference", icon: "code" });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      object: "site-section",
      title: "API reference",
      path: "api-reference",
      default: false,
      icon: "code",
      siteSpaces: [{ space: { id: api.id }, default: true }],
    });
    const sections = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items;
    expect(sections.map((section) => [section.title, section.default, section.siteSpaces.map((item) => item.id)])).toEqual([
      ["Sectioned", true, [rootSpace!.id]],
      ["API reference", false, [created.data.siteSpaces[0]!.id]],
    ]);
    const structure = (await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data;
    expect(structure.type).toBe("sections");
    expect(structure.structure.map((item) => item.id)).toEqual(sections.map((section) => section.id));
    // Site-spaces go to the default section unless one is named; paths are unique per section.
    const more = await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: api.id });
    expect(more.data).toMatchObject({ section: sections[0]!.id, path: "api" });
    const named = await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: api.id, sectionId: created.data.id });
    expect(named.data).toMatchObject({ section: created.data.id, path: "api-2" });
    const clash = await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${more.data.id}`, { token: org.owner.token, json: { path: "guide" } });
    expect([clash.status, clash.body.error.message]).toEqual([400, expect.stringContaining("path:")]);
    expect(
      (await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${named.data.id}`, { token: org.owner.token, json: { path: "guide" } })).status,
    ).toBe(200);
    // The site's default site-space is the default section's.
    expect((await org.owner.api.orgs.getSiteById(org.organizationId, site.id)).data.siteSpaces).toBe(4);
    const asDefault = await call(stack, "PATCH", `${sitesPath()}/${site.id}`, { token: org.owner.token, json: { defaultSiteSpace: named.data.id } });
    expect([asDefault.status, asDefault.body.error.message]).toEqual([400, expect.stringContaining("defaultSiteSpace:")]);
    expect(
      (
        await call(stack, "PATCH", `${sitesPath()}/${site.id}`, {
          token: org.owner.token,
          json: { defaultSiteSection: created.data.id, defaultSiteSpace: named.data.id },
        })
      ).status,
    ).toBe(200);
    const after = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items;
    expect(after.map((section) => section.default)).toEqual([false, true]);
    expect(after[1]!.siteSpaces.map((item) => [item.id, item.default])).toEqual([
      [created.data.siteSpaces[0]!.id, false],
      [named.data.id, true],
    ]);
  });

  it("updates, moves, sorts and deletes sections; published URLs carry the section's path", async () => {
    const space = await createSpace(stack, org, { title: "Docs" });
    const site = await newSite("Sections edit");
    const a = (await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: space.id, title: "Alpha" })).data;
    const b = (await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: space.id, title: "Beta" })).data;
    expect(a.default).toBe(true);
    const condition = 'visitor.claims.plan === "pro"';
    const updated = await org.owner.api.orgs.updateSiteSectionById(org.organizationId, site.id, b.id, {
      path: "beta-docs",
      description: "The beta",
      condition,
    });
    expect(updated.data).toMatchObject({ path: "beta-docs", description: "The beta", condition });
    const cleared = await call(stack, "PATCH", `${sitesPath()}/${site.id}/sections/${b.id}`, {
      token: org.owner.token,
      json: { condition: null, description: null },
    });
    expect([cleared.body.condition, cleared.body.description]).toEqual([undefined, undefined]);
    const cases: [unknown, string][] = [
      [{ title: "x" }, "title: must be at least 2 characters"],
      [{ path: a.path }, "path:"],
      [{ description: "d".repeat(257) }, "description: must be at most 256 characters"],
      [{ icon: "i".repeat(51) }, "icon: must be at most 50 characters"],
      [{ condition: "visitor.claims.plan ===" }, "condition:"],
      [{ defaultSiteSpace: a.siteSpaces[0]!.id }, "defaultSiteSpace:"],
      [{ siteSectionGroupId: "g1" }, "siteSectionGroupId"],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "PATCH", `${sitesPath()}/${site.id}/sections/${b.id}`, { token: org.owner.token, json });
      expect([response.status, response.body.error.message], JSON.stringify(json)).toEqual([400, expect.stringContaining(message)]);
    }
    const order = async () => (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items.map((section) => section.id);
    await org.owner.api.orgs.moveSiteSection(org.organizationId, site.id, b.id, { position: { before: { type: "site-section", siteSection: a.id } } });
    expect(await order()).toEqual([b.id, a.id]);
    const sorted = await org.owner.api.orgs.sortSiteStructure(org.organizationId, site.id, {
      item: { type: "site-section", id: b.id },
      position: { after: { type: "site-section", id: a.id } },
    });
    expect((sorted.data as { object: string }).object).toBe("site-section");
    expect(await order()).toEqual([a.id, b.id]);
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const published = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items[1]!;
    expect(published.urls.published).toBe(`${stack.baseUrl}/sites/${org.organizationId}/${site.id}/beta-docs/`);
    expect(published.siteSpaces[0]!.urls.published).toBe(`${stack.baseUrl}/sites/${org.organizationId}/${site.id}/beta-docs/docs/`);
    // Deleting the default section makes the next one the default; deleting twice is fine.
    expect((await org.owner.api.orgs.deleteSiteSectionById(org.organizationId, site.id, a.id)).status).toBe(204);
    expect((await call(stack, "DELETE", `${sitesPath()}/${site.id}/sections/${a.id}`, { token: org.owner.token })).status).toBe(204);
    const left = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items;
    expect(left.map((section) => [section.id, section.default])).toEqual([[b.id, true]]);
    expect((await org.owner.api.orgs.getSiteById(org.organizationId, site.id)).data.siteSpaces).toBe(1);
    expect((await call(stack, "POST", `${sitesPath()}/${site.id}/sections`, { token: editor.token, json: { spaceId: space.id } })).status).toBe(403);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/sections`, { token: other.owner.token })).status).toBe(404);
    const tooShort = await call(stack, "POST", `${sitesPath()}/${site.id}/sections`, { token: org.owner.token, json: { spaceId: space.id, title: "x" } });
    expect([tooShort.status, tooShort.body.error.message]).toEqual([400, "title: must be at least 2 characters"]);
  });
});

describe("section groups", () => {
  it("groups sections at the top level: create, list, update, add and remove sections, move, sort and delete", async () => {
    const space = await createSpace(stack, org, { title: "Docs" });
    const site = await newSite("Grouped");
    const add = async (title: string) => (await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: space.id, title })).data;
    const [a, b, c] = [await add("Alpha"), await add("Beta"), await add("Gamma")];
    const created = await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, site.id, { title: "Products", icon: "box", sections: [c.id, a.id] });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "site-section-group", title: "Products", icon: "box" });
    expect(created.data.sections.map((section) => [section.id, section.sectionGroup])).toEqual([
      [c.id, created.data.id],
      [a.id, created.data.id],
    ]);
    const top = async () => (await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data.structure.map((item) => [item.object, item.id]);
    expect(await top()).toEqual([
      ["site-section", b.id],
      ["site-section-group", created.data.id],
    ]);
    const sectionsInOrder = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items.map((section) => section.id);
    expect(sectionsInOrder).toEqual([b.id, c.id, a.id]);
    const renamed = await org.owner.api.orgs.updateSiteSectionGroupById(org.organizationId, site.id, created.data.id, { title: "All products", icon: null });
    expect(renamed.data.title).toBe("All products");
    expect(renamed.data.icon).toBeUndefined();
    // addSectionToGroup and removeSectionFromGroup are @gitbook/api 0.143.2's (interface.md); the group read back is checked by the list below.
    const older = { notInOpenApi: "addSectionToGroup / removeSectionFromGroup of @gitbook/api 0.143.2 (interface.md)" };
    const groupSections = `${sitesPath()}/${site.id}/section-groups/${created.data.id}/sections`;
    const joined = await call(stack, "POST", groupSections, { token: org.owner.token, json: { sectionId: b.id }, ...older });
    expect(joined.status).toBe(201);
    expect((joined.body.sections as { id: string }[]).map((section) => section.id)).toEqual([c.id, a.id, b.id]);
    expect((await call(stack, "DELETE", `${groupSections}/${c.id}`, { token: org.owner.token, ...older })).status).toBe(204);
    expect((await call(stack, "DELETE", `${groupSections}/${c.id}`, { token: org.owner.token, ...older })).status).toBe(204);
    expect(await top()).toEqual([
      ["site-section-group", created.data.id],
      ["site-section", c.id],
    ]);
    await org.owner.api.orgs.moveSiteSectionGroup(org.organizationId, site.id, created.data.id, { position: { after: { type: "site-section", id: c.id } } });
    expect((await top()).map(([, id]) => id)).toEqual([c.id, created.data.id]);
    const sorted = await org.owner.api.orgs.sortSiteStructure(org.organizationId, site.id, {
      item: { type: "site-section-group", id: created.data.id },
      position: { before: { type: "site-section", id: c.id } },
    });
    expect((sorted.data as { object: string }).object).toBe("site-section-group");
    expect((await top()).map(([, id]) => id)).toEqual([created.data.id, c.id]);
    const groups = (await org.owner.api.orgs.listSiteSectionGroups(org.organizationId, site.id)).data.items;
    expect(groups.map((group) => group.id)).toEqual([created.data.id]);
    // Deleting the group puts its sections back where it was.
    expect((await org.owner.api.orgs.deleteSiteSectionGroupById(org.organizationId, site.id, created.data.id)).status).toBe(204);
    expect((await call(stack, "DELETE", `${sitesPath()}/${site.id}/section-groups/${created.data.id}`, { token: org.owner.token })).status).toBe(204);
    expect((await top()).map(([, id]) => id)).toEqual([a.id, b.id, c.id]);
  });

  it("answers 400 naming the field, 403 to members who are not admins, 404 to other organizations", async () => {
    const site = await newSite("Group limits");
    const groups = `${sitesPath()}/${site.id}/section-groups`;
    const cases: [unknown, string][] = [
      [{ title: "" }, "title: must be at least 1 character"],
      [{ title: "t".repeat(101) }, "title: must be at most 100 characters"],
      [{ title: "G", icon: "i".repeat(51) }, "icon: must be at most 50 characters"],
      [{ title: "G", sections: ["nope"] }, "sections[0]:"],
      [{ title: "G", parent: "p1" }, "parent"],
      [{}, "title"],
    ];
    for (const [json, message] of cases) {
      const response = await call(stack, "POST", groups, { token: org.owner.token, json });
      expect([response.status, response.body.error.message], JSON.stringify(json)).toEqual([400, expect.stringContaining(message)]);
    }
    const group = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, site.id, { title: "G" })).data;
    const missing = await call(stack, "POST", `${groups}/${group.id}/sections`, {
      token: org.owner.token,
      json: { sectionId: "nope" },
      notInOpenApi: "addSectionToGroup (0.143.2)",
    });
    expect([missing.status, missing.body.error.message]).toEqual([400, expect.stringContaining("sectionId:")]);
    expect((await call(stack, "POST", groups, { token: editor.token, json: { title: "G" } })).status).toBe(403);
    expect((await call(stack, "PATCH", `${groups}/${group.id}`, { token: editor.token, json: { title: "H" } })).status).toBe(403);
    expect((await call(stack, "GET", groups, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "PATCH", `${groups}/${group.id}`, { token: org.owner.token, json: { title: "H" } })).body.title).toBe("H");
    expect((await call(stack, "PATCH", `${sitesPath()}/${site.id}/section-groups/nope`, { token: org.owner.token, json: { title: "H" } })).status).toBe(404);
  });
});

describe("visitor authentication", () => {
  it("answers the signing key to admins, sets the fallback and logout URLs, and regenerates the key", async () => {
    const site = await newSite("Protected");
    const auth = (await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, site.id)).data;
    expect(auth).toMatchObject({ object: "publishing-auth", backend: "custom" });
    expect(auth.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const updated = (
      await org.owner.api.orgs.updateSitePublishingAuthById(org.organizationId, site.id, {
        backend: "custom",
        fallbackURL: "https://login.example.com/start",
        logoutURL: "https://login.example.com/logout",
      } as never)
    ).data;
    expect(updated).toMatchObject({
      privateKey: auth.privateKey,
      fallbackURL: "https://login.example.com/start",
      logoutURL: "https://login.example.com/logout",
    });
    const unset = await call(stack, "PATCH", `${sitesPath()}/${site.id}/publishing/auth`, {
      token: org.owner.token,
      json: { backend: "custom", logoutURL: null },
    });
    expect(unset.body).toEqual({ object: "publishing-auth", backend: "custom", privateKey: auth.privateKey, fallbackURL: "https://login.example.com/start" });
    const regenerated = (await org.owner.api.orgs.regenerateSitePublishingAuthById(org.organizationId, site.id)).data;
    expect(regenerated.privateKey).not.toBe(auth.privateKey);
    expect((await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, site.id)).data.privateKey).toBe(regenerated.privateKey);
  });

  it("answers 400 naming the field, 403 to members who are not admins, 404 to other organizations", async () => {
    const site = await newSite("Protected limits");
    const patch = (json: unknown, token = org.owner.token) => call(stack, "PATCH", `${sitesPath()}/${site.id}/publishing/auth`, { token, json });
    const cases: [unknown, string][] = [
      [{ backend: "custom", fallbackURL: "not a url" }, "fallbackURL:"],
      [{ backend: "custom", logoutURL: "ftp://example.com" }, "logoutURL:"],
      [{ backend: "integration" }, "backend:"],
      [{ backend: "other" }, "backend:"],
      [{ fallbackURL: "https://example.com" }, "backend"],
    ];
    for (const [json, message] of cases) {
      const response = await patch(json);
      expect([response.status, response.body.error.message], JSON.stringify(json)).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/publishing/auth`, { token: editor.token })).status).toBe(403);
    expect((await patch({ backend: "custom" }, editor.token)).status).toBe(403);
    expect((await call(stack, "POST", `${sitesPath()}/${site.id}/publishing/auth/regenerate`, { token: editor.token })).status).toBe(403);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/publishing/auth`, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "POST", `${sitesPath()}/${site.id}/publishing/auth/regenerate`, { token: other.owner.token })).status).toBe(404);
  });
});

describe("adaptive content schema", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      isBetaUser: { type: "boolean", description: "Beta programme members" },
      plan: { type: "string", enum: ["free", "pro"], description: "Subscription plan" },
      seats: { type: "number", description: "Seats bought" },
      roles: { type: "array", description: "Roles", items: { type: "string", enum: ["admin", "dev"], description: "Role" } },
      account: {
        type: "object",
        description: "Account",
        properties: { isOwner: { type: "boolean", description: "Account owners" } },
        additionalProperties: false,
      },
      unsigned: {
        type: "object",
        description: "Unsigned claims of the site visitor.",
        properties: { language: { type: "string", enum: ["en"], description: "Language" } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  it("is 404 until set; PUT stores it; template conditions follow from it", async () => {
    const site = await newSite("Adaptive");
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/adaptive-schema`, { token: org.owner.token })).status).toBe(404);
    expect((await org.owner.api.orgs.listSiteAdaptiveTemplateConditions(org.organizationId, site.id)).data.items).toEqual([]);
    const put = await org.owner.api.orgs.updateSiteAdaptiveSchema(org.organizationId, site.id, { jsonSchema: schema as never });
    expect(put.data).toMatchObject({ object: "site-adaptive-schema", jsonSchema: schema });
    expect((await editor.api.orgs.getSiteAdaptiveSchema(org.organizationId, site.id)).data.jsonSchema).toEqual(schema);
    const conditions = (await editor.api.orgs.listSiteAdaptiveTemplateConditions(org.organizationId, site.id)).data.items;
    expect(conditions.map((item) => item.condition)).toEqual([
      "visitor.claims.isBetaUser === true",
      'visitor.claims.plan === "free"',
      'visitor.claims.plan === "pro"',
      'visitor.claims.roles.includes("admin")',
      'visitor.claims.roles.includes("dev")',
      "visitor.claims.account.isOwner === true",
      'visitor.claims.unsigned.language === "en"',
    ]);
    // Every template condition is one a site-space accepts.
    const space = await createSpace(stack, org);
    const siteSpace = (await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: space.id })).data;
    for (const { condition } of conditions) {
      expect(
        (await call(stack, "PATCH", `${sitesPath()}/${site.id}/site-spaces/${siteSpace.id}`, { token: org.owner.token, json: { condition } })).status,
      ).toBe(200);
    }
  });

  it("refuses anything else naming the JSON path; only admins set it; other organizations get 404", async () => {
    const site = await newSite("Adaptive limits");
    const put = (jsonSchema: unknown, token = org.owner.token) =>
      call(stack, "PUT", `${sitesPath()}/${site.id}/adaptive-schema`, { token, json: { jsonSchema } });
    const without = (key: string) => Object.fromEntries(Object.entries(schema).filter(([name]) => name !== key));
    const cases: [unknown, string][] = [
      [{ ...schema, additionalProperties: true }, "jsonSchema.additionalProperties: must be false"],
      [without("type"), "jsonSchema.type: must be object"],
      [{ ...schema, properties: { x: { type: "boolean" } } }, "jsonSchema.properties.x.description: must be a non-empty string"],
      [{ ...schema, properties: { x: { type: "date", description: "d" } } }, "jsonSchema.properties.x.type: must be boolean, string, number, array or object"],
      [{ ...schema, properties: { x: { type: "string", description: "d", enum: [1] } } }, "jsonSchema.properties.x.enum[0]: must be a string"],
      [
        { ...schema, properties: { x: { type: "array", description: "d", items: { type: "object", description: "o" } } } },
        "jsonSchema.properties.x.items.type: must be boolean, string or number",
      ],
      [{ ...schema, properties: { o: { type: "object", description: "o", properties: {} } } }, "jsonSchema.properties.o.additionalProperties: must be false"],
      [{ ...schema, properties: { constructor: { type: "boolean", description: "c" } } }, "jsonSchema.properties.constructor: is not a usable claim name"],
      [{ ...schema, extra: 1 }, "jsonSchema.extra: is not allowed here"],
    ];
    for (const [jsonSchema, message] of cases) {
      const response = await put(jsonSchema);
      expect([response.status, response.body.error.message], JSON.stringify(jsonSchema)).toEqual([400, expect.stringContaining(message)]);
    }
    const notObject = await call(stack, "PUT", `${sitesPath()}/${site.id}/adaptive-schema`, { token: org.owner.token, json: { jsonSchema: [] } });
    expect([notObject.status, notObject.body.error.message]).toEqual([400, expect.stringContaining("jsonSchema")]);
    expect((await put(schema, editor.token)).status).toBe(403);
    expect((await put(schema, other.owner.token)).status).toBe(404);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/adaptive-schema/template-conditions`, { token: other.owner.token })).status).toBe(404);
  });
});

describe("a site's spaces follow content", () => {
  it("a deleted space leaves every site within seconds and rejoins them, where it was, on restore", async () => {
    const first = await createSpace(stack, org, { title: "First" });
    const second = await createSpace(stack, org, { title: "Second" });
    const site = await newSite("Follows content", [first.id, second.id]);
    const before = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    expect((await call(stack, "DELETE", `/v1/spaces/${first.id}`, { token: org.owner.token })).status).toBe(204);
    await eventually(async () => (await org.owner.api.orgs.getSiteById(org.organizationId, site.id)).data.siteSpaces === 1);
    const during = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    expect(during.map((item) => [item.space.id, item.default])).toEqual([[second.id, true]]);
    expect((await org.owner.api.orgs.listSites(org.organizationId, { space: first.id })).data.items).toEqual([]);
    expect((await call(stack, "POST", `/v1/spaces/${first.id}/restore`, { token: org.owner.token })).status).toBe(200);
    await eventually(async () => (await org.owner.api.orgs.getSiteById(org.organizationId, site.id)).data.siteSpaces === 2);
    const after = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items;
    expect(after.map((item) => [item.id, item.path, item.default])).toEqual(before.map((item) => [item.id, item.path, item.default]));
  });

  it("pages through sites with limit and next", async () => {
    const other = await createOrganization(stack);
    for (const title of ["Page one", "Page two", "Page three"]) await other.owner.api.orgs.createSite(other.organizationId, { title });
    const first = await other.owner.api.orgs.listSites(other.organizationId, { limit: 2 });
    expect([first.data.count, first.data.items.map((item) => item.title)]).toEqual([3, ["Page one", "Page two"]]);
    const second = await other.owner.api.orgs.listSites(other.organizationId, { limit: 2, page: first.data.next!.page });
    expect([second.data.items.map((item) => item.title), second.data.next]).toEqual([["Page three"], undefined]);
  });
});

describe("share links", () => {
  it("creates, lists, renames, deactivates and deletes share links; urls.published carries the key", async () => {
    const site = await newSite("Shared");
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { visibility: e("share-link") });
    const created = await call(stack, "POST", `${sitesPath()}/${site.id}/share-links`, { token: org.owner.token, json: { name: "Partners" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "share-link", name: "Partners", active: true });
    expect(created.body.urls.published).toBeUndefined();
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const second = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "Auditors" })).data;
    const prefix = `${stack.baseUrl}/sites/${org.organizationId}/${site.id}/`;
    expect(second.urls.published).toMatch(new RegExp(`^${prefix.replace(/[.?]/g, "\\$&")}[A-Za-z0-9_-]{32}/$`));
    const listed = (await org.owner.api.orgs.listSiteShareLinks(org.organizationId, site.id)).data.items;
    expect(listed.map((link) => link.id)).toEqual([created.body.id, second.id]);
    expect(listed[0]!.urls.published).not.toBe(listed[1]!.urls.published);
    const key = second.urls.published!.slice(prefix.length, -1);
    expect((await org.owner.api.orgs.listSiteShareLinks(org.organizationId, site.id, { search: key })).data.items.map((link) => link.id)).toEqual([second.id]);
    const changed = await org.owner.api.orgs.updateSiteShareLinkById(org.organizationId, site.id, second.id, { active: false, name: "Former auditors" });
    expect(changed.data).toMatchObject({ active: false, name: "Former auditors", urls: { published: second.urls.published } });
    expect((await org.owner.api.orgs.deleteSiteShareLinkById(org.organizationId, site.id, second.id)).status).toBe(204);
    expect((await call(stack, "DELETE", `${sitesPath()}/${site.id}/share-links/${second.id}`, { token: org.owner.token })).status).toBe(204);
    expect((await org.owner.api.orgs.listSiteShareLinks(org.organizationId, site.id)).data.items.map((link) => link.id)).toEqual([created.body.id]);
  });

  it("answers 400 naming the field and 403 for members who are not admins", async () => {
    const site = await newSite("Share limits");
    const long = await call(stack, "POST", `${sitesPath()}/${site.id}/share-links`, { token: org.owner.token, json: { name: "n".repeat(51) } });
    expect([long.status, long.body.error.message]).toEqual([400, "name: must be at most 50 characters"]);
    const missing = await call(stack, "POST", `${sitesPath()}/${site.id}/share-links`, { token: org.owner.token, json: {} });
    expect([missing.status, missing.body.error.message]).toEqual([400, expect.stringContaining("name")]);
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "x" })).data;
    const empty = await call(stack, "PATCH", `${sitesPath()}/${site.id}/share-links/${link.id}`, { token: org.owner.token, json: {} });
    expect([empty.status, empty.body.error.message]).toEqual([400, "body: must contain active or name"]);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}/share-links`, { token: editor.token })).status).toBe(403);
    expect((await call(stack, "PATCH", `${sitesPath()}/${site.id}/share-links/${link.id}`, { token: editor.token, json: { active: false } })).status).toBe(403);
  });
});

describe("site permissions", () => {
  const orgs = (user: TestUser) => user.api.orgs;
  const ids = (items: { id: string }[]) => items.map((item) => item.id);

  it("lets a guest granted one site list and read only it; a grant adds to the organization role", async () => {
    const [granted, hidden] = [await newSite("Granted"), await newSite("Hidden")];
    const guest = await createMember(stack, org, { role: "guest" });
    expect(ids((await orgs(guest).listSites(org.organizationId)).data.items)).toEqual([]);
    expect((await call(stack, "GET", `${sitesPath()}/${granted.id}`, { token: guest.token })).status).toBe(404);

    expect((await orgs(org.owner).inviteToSite(org.organizationId, granted.id, { role: role("read"), users: [guest.userId] })).status).toBe(204);
    expect(ids((await orgs(guest).listSites(org.organizationId)).data.items)).toEqual([granted.id]);
    expect((await orgs(guest).getSiteById(org.organizationId, granted.id)).data.permissions).toMatchObject({ view: true, admin: false });
    expect((await orgs(guest).listSiteSpaces(org.organizationId, granted.id)).status).toBe(200);
    expect((await call(stack, "GET", `${sitesPath()}/${hidden.id}`, { token: guest.token })).status).toBe(404);
    expect((await call(stack, "PATCH", `${sitesPath()}/${granted.id}`, { token: guest.token, json: { title: "Mine" } })).status).toBe(403);

    // An editor granted admin on one site changes it, and only it.
    expect((await orgs(org.owner).updateUserPermissionInSite(org.organizationId, granted.id, editor.userId, { role: role("admin") })).status).toBe(204);
    expect((await orgs(editor).updateSiteById(org.organizationId, granted.id, { title: "Renamed" })).data.permissions).toMatchObject({ admin: true });
    expect((await call(stack, "PATCH", `${sitesPath()}/${hidden.id}`, { token: editor.token, json: { title: "Mine" } })).status).toBe(403);
    const users = (await orgs(editor).listUserPermissionsInSite(org.organizationId, granted.id)).data.items;
    expect(users.map((item) => [item.user.id, item.permission])).toEqual([
      [guest.userId, "read"],
      [editor.userId, "admin"],
    ]);

    // Where each level comes from: the owner's organization role, the editor's and the guest's own grants.
    const aggregate = (await orgs(editor).listPermissionsAggregateInSite(org.organizationId, granted.id, { limit: 1000 })).data.items;
    const byUser = new Map(aggregate.map((item) => [item.user.id, item]));
    expect(byUser.get(org.owner.userId)).toMatchObject({ permission: "admin", origin: { type: "organization", organization: org.organizationId } });
    expect(byUser.get(editor.userId)).toMatchObject({ permission: "admin", origin: { type: "site", site: granted.id, reason: "member" } });
    expect(byUser.get(guest.userId)).toMatchObject({ permission: "read", origin: { type: "site", site: granted.id, reason: "member" } });
    // A grant below the organization role changes nothing: the organization stays the origin.
    await orgs(org.owner).updateUserPermissionInSite(org.organizationId, granted.id, editor.userId, { role: role("read") });
    const again = (await orgs(editor).listPermissionsAggregateInSite(org.organizationId, granted.id, { limit: 1000 })).data.items;
    expect(again.find((item) => item.user.id === editor.userId)).toMatchObject({ permission: "edit", origin: { type: "organization" } });

    expect((await orgs(org.owner).removeUserFromSite(org.organizationId, granted.id, guest.userId)).status).toBe(205);
    expect((await orgs(org.owner).removeUserFromSite(org.organizationId, granted.id, guest.userId)).status).toBe(204);
    expect((await call(stack, "GET", `${sitesPath()}/${granted.id}`, { token: guest.token })).status).toBe(404);
    expect(ids((await orgs(guest).listSites(org.organizationId)).data.items)).toEqual([]);
  });

  it("gives a team's members the team's level once identity's membership event arrives; a removed member's grants go", async () => {
    const site = await newSite("Team");
    const guest = await createMember(stack, org, { role: "guest" });
    const team = (await orgs(org.owner).createOrganizationTeam(org.organizationId, { title: "Site team", members: [guest.userId] })).data;
    expect((await orgs(org.owner).updateTeamPermissionInSite(org.organizationId, site.id, team.id, { role: role("edit") })).status).toBe(204);
    await eventually(async () => expect((await call(stack, "GET", `${sitesPath()}/${site.id}`, { token: guest.token })).status).toBe(200));
    const teams = (await orgs(guest).listTeamPermissionsInSite(org.organizationId, site.id)).data.items;
    expect(teams.map((item) => [item.team.id, item.permission])).toEqual([[team.id, "edit"]]);
    const members = (await orgs(org.owner).listPermissionsAggregateInSite(org.organizationId, site.id, { team: team.id })).data.items;
    expect(members.map((item) => [item.user.id, item.permission, item.origin])).toEqual([
      [guest.userId, "edit", { type: "site", site: site.id, reason: "team", team: team.id }],
    ]);
    expect((await orgs(org.owner).removeTeamFromSite(org.organizationId, site.id, team.id)).status).toBe(205);
    expect((await orgs(org.owner).removeTeamFromSite(org.organizationId, site.id, team.id)).status).toBe(204);
    expect((await call(stack, "GET", `${sitesPath()}/${site.id}`, { token: guest.token })).status).toBe(404);

    await orgs(org.owner).inviteToSite(org.organizationId, site.id, { role: role("comment"), users: [guest.userId], teams: [team.id] });
    expect((await orgs(org.owner).listTeamPermissionsInSite(org.organizationId, site.id)).data.items.map((item) => item.permission)).toEqual(["comment"]);
    await orgs(org.owner).removeMemberFromOrganizationById(org.organizationId, guest.userId);
    await eventually(async () => expect((await orgs(org.owner).listUserPermissionsInSite(org.organizationId, site.id)).data.items).toEqual([]));
  });

  it("refuses other organizations (404), members without the right (403, guests 404) and bad input (400 naming the field)", async () => {
    const site = await newSite("Guarded");
    const base = `${sitesPath()}/${site.id}/permissions`;
    const foreignTeam = (await orgs(other.owner).createOrganizationTeam(other.organizationId, { title: "Foreign" })).data;
    const routes: [string, string, unknown?][] = [
      ["POST", base, { role: "read", users: [editor.userId] }],
      ["GET", `${base}/aggregate`],
      ["GET", `${base}/users`],
      ["PATCH", `${base}/users/${editor.userId}`, { role: "read" }],
      ["DELETE", `${base}/users/${editor.userId}`],
      ["GET", `${base}/teams`],
      ["PATCH", `${base}/teams/${foreignTeam.id}`, { role: "read" }],
      ["DELETE", `${base}/teams/${foreignTeam.id}`],
    ];
    for (const [method, path, json] of routes) {
      expect((await call(stack, method, path, { token: other.owner.token, json })).status, `${method} ${path}`).toBe(404);
    }
    const writes = routes.filter(([method]) => method !== "GET");
    for (const [method, path, json] of writes) {
      expect((await call(stack, method, path, { token: editor.token, json })).status, `${method} ${path}`).toBe(403);
    }
    const stranger = await createMember(stack, org, { role: "guest" });
    for (const [method, path, json] of routes) {
      expect((await call(stack, method, path, { token: stranger.token, json })).status, `${method} ${path}`).toBe(404);
    }
    const refused = async (method: string, path: string, json: unknown): Promise<[number, string]> => {
      const response = await call(stack, method, path, { token: org.owner.token, json });
      return [response.status, String(response.body.error.message)];
    };
    expect(await refused("POST", base, { role: "read" })).toEqual([400, "body: must contain users or teams"]);
    expect(await refused("POST", base, { role: "owner", users: [editor.userId] })).toEqual([400, expect.stringContaining("role")]);
    expect(await refused("POST", base, { role: "read", users: [] })).toEqual([400, expect.stringContaining("users")]);
    expect(await refused("POST", base, { role: "read", users: [editor.userId, other.owner.userId] })).toEqual([
      400,
      `users[1]: no member ${other.owner.userId} in this organization`,
    ]);
    expect(await refused("POST", base, { role: "read", teams: [foreignTeam.id] })).toEqual([400, `teams[0]: no team ${foreignTeam.id} in this organization`]);
    expect(await refused("PATCH", `${base}/users/${other.owner.userId}`, { role: "read" })).toEqual([
      400,
      `userId: no member ${other.owner.userId} in this organization`,
    ]);
    expect(await refused("PATCH", `${base}/teams/${foreignTeam.id}`, { role: "read" })).toEqual([
      400,
      `teamId: no team ${foreignTeam.id} in this organization`,
    ]);
    expect(await refused("PATCH", `${base}/users/${editor.userId}`, {})).toEqual([400, expect.stringContaining("role")]);
    // Nothing was granted by the refused calls.
    expect((await orgs(org.owner).listUserPermissionsInSite(org.organizationId, site.id)).data.items).toEqual([]);
    expect((await orgs(org.owner).listTeamPermissionsInSite(org.organizationId, site.id)).data.items).toEqual([]);
  });

  it("records grant changes in the organization's audit log", async () => {
    const site = await newSite("Audited");
    await orgs(org.owner).updateUserPermissionInSite(org.organizationId, site.id, editor.userId, { role: role("admin") });
    await orgs(org.owner).removeUserFromSite(org.organizationId, site.id, editor.userId);
    for (const action of ["site.permission.updated", "site.permission.removed"]) {
      const found = await eventually(async () => {
        const { items } = (await orgs(org.owner).listOrganizationAuditEvents(org.organizationId, { action, target: editor.userId })).data;
        expect(items.length).toBeGreaterThan(0);
        return items;
      });
      expect(found[0]).toMatchObject({ action, actor: { type: "user", id: org.owner.userId }, target: { type: "user", id: editor.userId } });
    }
  });
});

describe("getPublishedContentByUrl", () => {
  /** A published site with basename: a default section (two site-spaces: guide, v2) and an "API reference" section. */
  async function publishedSite() {
    const guide = await createSpace(stack, org, { title: "Guide" });
    const v2 = await createSpace(stack, org, { title: "Guide v2" });
    const api = await createSpace(stack, org, { title: "API" });
    const site = await newSite("Resolved", [guide.id]);
    const basename = `resolved-${Date.now().toString(36)}`;
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename });
    await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: v2.id });
    await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: api.id, title: "API reference" });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const [main, reference] = (await org.owner.api.orgs.listSiteSections(org.organizationId, site.id)).data.items;
    const [guideSiteSpace, v2SiteSpace] = main!.siteSpaces;
    const base = `${stack.baseUrl}/sites/${org.organizationId}/${basename}/`;
    return { site, basename, base, guide, v2, api, main: main!, reference: reference!, guideSiteSpace: guideSiteSpace!, v2SiteSpace: v2SiteSpace! };
  }

  const resolve = (url: string, token = org.owner.token, extra = "") =>
    call(stack, "GET", `/v1/urls/published?url=${encodeURIComponent(url)}${extra}`, { token });

  it("resolves the site's root, a section, a variant and a page path to their ids, with a short-lived token of the caller's", async () => {
    const { site, basename, base, guide, v2, api, main, reference, guideSiteSpace, v2SiteSpace } = await publishedSite();
    const byUrl = async (url: string) => (await org.owner.api.urls.getPublishedContentByUrl({ url })).data as Record<string, unknown>;
    const sitePath = `/sites/${org.organizationId}/${basename}/`;
    const common = { organization: org.organizationId, site: site.id, siteBasePath: sitePath };

    const root = await byUrl(base);
    expect(root).toMatchObject({ ...common, siteSection: main.id, siteSpace: guideSiteSpace.id, space: guide.id, pathname: "", basePath: sitePath });
    expect(root).toMatchObject({ complete: false, canonicalUrl: base });
    expect(root.shareKey).toBeUndefined();

    expect(reference.urls.published).toBe(`${base}${reference.path}/`);
    expect(await byUrl(reference.urls.published!)).toMatchObject({
      ...common,
      siteSection: reference.id,
      siteSpace: reference.siteSpaces[0]!.id,
      space: api.id,
      pathname: "",
      basePath: `${sitePath}${reference.path}/`,
      complete: true,
      canonicalUrl: `${base}${reference.path}/`,
    });

    const variant = `${base}${main.path}/${v2SiteSpace.path}/`;
    expect(await byUrl(v2SiteSpace.urls.published!)).toMatchObject({
      siteSection: main.id,
      siteSpace: v2SiteSpace.id,
      space: v2.id,
      pathname: "",
      complete: true,
    });
    const page = await byUrl(`${variant}getting-started/setup?tab=1#install`);
    expect(page).toMatchObject({
      ...common,
      siteSection: main.id,
      siteSpace: v2SiteSpace.id,
      space: v2.id,
      pathname: "getting-started/setup",
      basePath: `${sitePath}${main.path}/${v2SiteSpace.path}/`,
      complete: true,
      canonicalUrl: `${variant}getting-started/setup`,
    });
    // The default site-space's own published URL (which names its path), and the site by its id.
    expect(await byUrl(guideSiteSpace.urls.published!)).toMatchObject({ siteSpace: guideSiteSpace.id, space: guide.id, pathname: "", complete: true });
    expect(await byUrl(`${stack.baseUrl}/sites/${org.organizationId}/${site.id}/faq`)).toMatchObject({
      site: site.id,
      siteSpace: guideSiteSpace.id,
      pathname: "faq",
      siteBasePath: `/sites/${org.organizationId}/${site.id}/`,
      canonicalUrl: `${base}faq`,
    });
    // Through the site's custom hostname (its canonical address then).
    const hostname = `resolved-${Date.now().toString(36)}.example.com`;
    expect((await call(stack, "PATCH", `${sitesPath()}/${site.id}`, { token: org.owner.token, json: { hostname } })).status).toBe(200);
    expect(await byUrl(`https://${hostname.toUpperCase()}/${reference.path}/endpoints`)).toMatchObject({
      site: site.id,
      siteSection: reference.id,
      space: api.id,
      pathname: "endpoints",
      siteBasePath: "/",
      basePath: `/${reference.path}/`,
      canonicalUrl: `https://${hostname}/${reference.path}/endpoints`,
    });
    // resolvePublishedContentByUrl: the same resolution, its inputs in the body.
    expect((await org.owner.api.urls.resolvePublishedContentByUrl({ url: variant })).data).toMatchObject({ siteSpace: v2SiteSpace.id, space: v2.id });

    // The token reads as its caller, for an hour.
    const token = page.apiToken as string;
    expect(token).not.toBe(org.owner.token);
    expect((await gitbookClient(stack, token).spaces.getSpaceById(v2.id)).data.id).toBe(v2.id);
    const authenticated = await stack.identity.tokens.authenticateToken({ token });
    expect(authenticated.caller?.userId).toBe(org.owner.userId);
    const lifetime = authenticated.expiresAt!.getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
  });

  it("answers 404 for another organization's site, an unpublished site and URLs of no site; 400 for a bad url", async () => {
    const { base, site } = await publishedSite();
    expect((await resolve(`${base}faq`, other.owner.token)).status).toBe(404);
    const unpublished = await newSite("Unpublished");
    for (const url of [
      `${stack.baseUrl}/sites/${org.organizationId}/${unpublished.id}/`,
      `${stack.baseUrl}/sites/${org.organizationId}/no-such-site/`,
      `${stack.baseUrl}/sites/${other.organizationId}/${site.id}/`,
      `${stack.baseUrl}/sites/${org.organizationId}/`,
      `${stack.baseUrl}/elsewhere/${org.organizationId}/${site.id}/`,
      "https://docs.elsewhere.example/guide",
    ]) {
      const response = await resolve(url);
      expect([response.status, response.body.error.message], url).toEqual([404, "No published content found for the URL"]);
    }
    for (const [query, field] of [
      ["?url=not%20a%20url", "url"],
      ["", "url"],
      [`?url=${encodeURIComponent(base)}&redirectOnError=maybe`, "redirectOnError"],
    ] as const) {
      const response = await call(stack, "GET", `/v1/urls/published${query}`, { token: org.owner.token });
      expect([response.status, response.body.error.message], query).toEqual([400, expect.stringContaining(`${field}:`)]);
    }
    const posted = await call(stack, "POST", "/v1/urls/published", { token: org.owner.token, json: { url: "ftp://x" } });
    expect([posted.status, posted.body.error.message]).toEqual([400, expect.stringContaining("url:")]);
  });

  it("resolves share-link URLs through an active key, and visitor-auth sites for members, or guests with a valid visitor token", async () => {
    const { site, base } = await publishedSite();
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { visibility: e("share-link") });
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "Readers" })).data;
    const key = link.urls.published!.slice(base.length, -1);
    expect((await org.owner.api.urls.getPublishedContentByUrl({ url: `${link.urls.published}faq` })).data).toMatchObject({
      shareKey: key,
      pathname: "faq",
      siteBasePath: expect.stringMatching(new RegExp(`/${key}/$`)),
      canonicalUrl: `${base}${key}/faq`,
    });
    expect((await resolve(`${base}faq`)).status).toBe(404);

    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { visibility: e("visitor-auth") });
    const guest = await createMember(stack, org, { role: "guest" });
    await org.owner.api.orgs.inviteToSite(org.organizationId, site.id, { role: role("read"), users: [guest.userId] });
    expect((await resolve(`${base}faq`, editor.token)).body).toMatchObject({ site: site.id, pathname: "faq" });
    expect((await resolve(`${base}faq`, guest.token)).status).toBe(404);
    const { privateKey } = (await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, site.id)).data;
    const sign = (expires: string | number) =>
      new SignJWT({ plan: "pro" }).setProtectedHeader({ alg: "HS256" }).setExpirationTime(expires).sign(new TextEncoder().encode(privateKey));
    expect((await resolve(`${base}faq`, guest.token, `&visitorAuthToken=${await sign(Math.floor(Date.now() / 1000) - 60)}`)).status).toBe(404);
    expect((await resolve(`${base}faq`, guest.token, `&visitorAuthToken=${await sign("1h")}`)).body).toMatchObject({ site: site.id, pathname: "faq" });
    const posted = await call(stack, "POST", "/v1/urls/published", {
      token: guest.token,
      json: { url: `${base}faq`, visitor: { jwtToken: await sign("1h") } },
    });
    expect(posted.body).toMatchObject({ site: site.id, pathname: "faq" });
  });
});
