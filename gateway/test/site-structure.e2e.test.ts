import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, createSpace, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
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

const sitePath = (siteId: string, organizationId = org.organizationId) => `/v1/orgs/${organizationId}/sites/${siteId}`;
const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });
type Item = { object: string; id: string; title?: string; draft?: boolean; children?: Item[]; sectionGroup?: string };

/** A site with sections "One", "Two" and "Three" (one space each). */
async function siteWithSections(title: string): Promise<{ siteId: string; sections: string[] }> {
  const site = (await org.owner.api.orgs.createSite(org.organizationId, { title })).data;
  const sections: string[] = [];
  for (const name of ["One", "Two", "Three"]) {
    const space = await createSpace(stack, org, { title: `${title} ${name}` });
    sections.push((await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: space.id, title: name })).data.id);
  }
  return { siteId: site.id, sections };
}

/** The structure's top level as titles, groups with their children nested. */
async function outline(siteId: string, path: "structure" | "published" = "structure"): Promise<unknown[]> {
  const body = (await call(stack, "GET", `${sitePath(siteId)}/${path}`, owner())).body as { structure: { structure: Item[] } } & { structure: Item[] };
  const items = path === "published" ? body.structure.structure : body.structure;
  const walk = (list: Item[]): unknown[] =>
    list.map((item) =>
      item.children
        ? { [item.title!]: walk(item.children) }
        : `${item.object === "site-external-link" ? "link:" : ""}${item.title}${item.draft ? " (draft)" : ""}`,
    );
  return walk(items);
}

describe("external links in a site's structure", () => {
  it("adds, changes, sorts and deletes links with GitBook's client, among sections and in groups", async () => {
    const { siteId, sections } = await siteWithSections("Links");
    const created = await org.owner.api.orgs.addExternalLinkToSite(org.organizationId, siteId, {
      title: "Status page",
      url: "https://status.example.com",
      icon: "signal",
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "site-external-link", title: "Status page", url: "https://status.example.com", icon: "signal", draft: false });
    expect(await outline(siteId)).toEqual(["One", "Two", "Three", "link:Status page"]);

    const sorted = await org.owner.api.orgs.sortSiteStructure(org.organizationId, siteId, {
      item: { type: "site-external-link", id: created.data.id },
      position: { before: { type: "site-section", id: sections[1]! } },
    });
    expect(sorted.data).toMatchObject({ object: "site-external-link", id: created.data.id });
    expect(await outline(siteId)).toEqual(["One", "link:Status page", "Two", "Three"]);

    const group = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, siteId, { title: "Resources", sections: [sections[2]!] })).data;
    const moved = (await org.owner.api.orgs.updateSiteExternalLinkById(org.organizationId, siteId, created.data.id, { parent: group.id, title: "Status" }))
      .data;
    expect(moved).toMatchObject({ title: "Status", sectionGroup: group.id });
    expect(await outline(siteId)).toEqual(["One", "Two", { Resources: ["Three", "link:Status"] }]);

    const back = (await call(stack, "PATCH", `${sitePath(siteId)}/external-links/${created.data.id}`, owner({ parent: null, icon: null }))).body;
    expect(back).not.toHaveProperty("sectionGroup");
    expect(back).not.toHaveProperty("icon");
    expect((await call(stack, "DELETE", `${sitePath(siteId)}/external-links/${created.data.id}`, owner())).status).toBe(205);
    expect((await call(stack, "DELETE", `${sitePath(siteId)}/external-links/${created.data.id}`, owner())).status).toBe(204);
    expect(await outline(siteId)).toEqual(["One", "Two", { Resources: ["Three"] }]);
  });

  it("refuses bad links naming the field, sites without sections, non-admins and other organizations", async () => {
    const { siteId } = await siteWithSections("Refusals");
    const links = `${sitePath(siteId)}/external-links`;
    for (const [body, message] of [
      [{ title: "x", url: "https://example.com" }, "title: must be at least 2 characters"],
      [{ title: "Docs", url: "javascript:alert(1)" }, "url: must be an absolute http(s) URL"],
      [{ title: "Docs", url: "/relative" }, "url: must be an absolute http(s) URL"],
      [
        { title: "Docs", url: "https://example.com", parent: "00000000-0000-4000-8000-000000000000" },
        "parent: no section group 00000000-0000-4000-8000-000000000000 in this site",
      ],
      [{ title: "Docs", url: "https://example.com", condition: "visitor.claims.__proto__" }, "condition:"],
    ] as const) {
      const response = await call(stack, "POST", links, owner(body));
      expect([response.status, response.body.error.message]).toEqual([400, expect.stringContaining(message)]);
    }
    const flat = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Flat" })).data;
    const refused = await call(stack, "POST", `${sitePath(flat.id)}/external-links`, owner({ title: "Docs", url: "https://example.com" }));
    expect([refused.status, refused.body.error.message]).toEqual([400, expect.stringContaining("sections")]);
    expect((await call(stack, "POST", links, { token: editor.token, json: { title: "Docs", url: "https://example.com" } })).status).toBe(403);
    expect(
      (
        await call(stack, "POST", `${sitePath(siteId, other.organizationId)}/external-links`, {
          token: other.owner.token,
          json: { title: "Docs", url: "https://example.com" },
        })
      ).status,
    ).toBe(404);
    expect((await call(stack, "PATCH", `${links}/00000000-0000-4000-8000-000000000000`, owner({ title: "Docs" }))).status).toBe(404);
  });
});

describe("nested section groups", () => {
  it("nests groups (parent, parentSectionGroupId), keeps children in order and puts them back when a group goes", async () => {
    const { siteId, sections } = await siteWithSections("Nesting");
    const outer = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, siteId, { title: "Guides", sections: [sections[1]!] })).data;
    const inner = await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, siteId, { title: "Advanced", parent: outer.id, sections: [sections[2]!] });
    expect(inner.status).toBe(201);
    expect(inner.data).toMatchObject({ sectionGroup: outer.id, sections: [{ id: sections[2] }], children: [{ id: sections[2] }] });
    expect(await outline(siteId)).toEqual(["One", { Guides: ["Two", { Advanced: ["Three"] }] }]);
    const listed = (await org.owner.api.orgs.listSiteSectionGroups(org.organizationId, siteId)).data.items.map((group) => group.title);
    expect(listed).toEqual(["Guides", "Advanced"]);

    // A group never goes into itself or into a group it contains.
    const cycle = await call(stack, "PATCH", `${sitePath(siteId)}/section-groups/${outer.id}`, owner({ parentSectionGroupId: inner.data.id }));
    expect([cycle.status, cycle.body.error.message]).toEqual([400, expect.stringContaining("parentSectionGroupId: a section group cannot be put in itself")]);
    const itself = await call(stack, "PATCH", `${sitePath(siteId)}/section-groups/${outer.id}`, owner({ parentSectionGroupId: outer.id }));
    expect(itself.status).toBe(400);

    // Groups nest at most 4 deep.
    let parent = inner.data.id;
    for (const title of ["Level 3", "Level 4"])
      parent = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, siteId, { title, parent })).data.id;
    const tooDeep = await call(stack, "POST", `${sitePath(siteId)}/section-groups`, owner({ title: "Level 5", parent }));
    expect([tooDeep.status, tooDeep.body.error.message]).toEqual([400, "parent: section groups nest at most 4 deep"]);

    // Out to the top level, then deleting a group puts its children where it was.
    const unnested = (await call(stack, "PATCH", `${sitePath(siteId)}/section-groups/${inner.data.id}`, owner({ parentSectionGroupId: null }))).body as Item;
    expect(unnested).not.toHaveProperty("sectionGroup");
    expect(await outline(siteId)).toEqual(["One", { Guides: ["Two"] }, { Advanced: ["Three", { "Level 3": [{ "Level 4": [] }] }] }]);
    expect((await call(stack, "DELETE", `${sitePath(siteId)}/section-groups/${inner.data.id}`, owner())).status).toBe(204);
    expect(await outline(siteId)).toEqual(["One", { Guides: ["Two"] }, "Three", { "Level 3": [{ "Level 4": [] }] }]);

    // Sorting may move an item into another level: next to an item of a group.
    await org.owner.api.orgs.sortSiteStructure(org.organizationId, siteId, {
      item: { type: "site-section", id: sections[0]! },
      position: { after: { type: "site-section", id: sections[1]! } },
    });
    expect(await outline(siteId)).toEqual([{ Guides: ["Two", "One"] }, "Three", { "Level 3": [{ "Level 4": [] }] }]);
  });
});

describe("drafts", () => {
  it("flags drafts to members and leaves them (with everything in them) out of the published view until they are live", async () => {
    const { siteId, sections } = await siteWithSections("Drafts");
    const extra = await createSpace(stack, org, { title: "Upcoming" });
    const draftSpace = (await org.owner.api.orgs.addSpaceToSite(org.organizationId, siteId, { spaceId: extra.id, sectionId: sections[0], draft: true })).data;
    expect(draftSpace.draft).toBe(true);
    await org.owner.api.orgs.updateSiteSectionById(org.organizationId, siteId, sections[1]!, { draft: true });
    const group = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, siteId, { title: "Beta", sections: [sections[2]!], draft: true })).data;
    await org.owner.api.orgs.addExternalLinkToSite(org.organizationId, siteId, { title: "Roadmap", url: "https://example.com/roadmap", draft: true });

    expect(await outline(siteId)).toEqual(["One", "Two (draft)", { Beta: ["Three"] }, "link:Roadmap (draft)"]);
    const structure = (await org.owner.api.orgs.getSiteStructure(org.organizationId, siteId)).data.structure as (Item & {
      siteSpaces?: { id: string; draft: boolean }[];
    })[];
    expect(structure[0]!.siteSpaces!.map((siteSpace) => siteSpace.draft)).toEqual([false, true]);
    expect(structure[2]).toMatchObject({ draft: true });

    // What visitors get: no draft section, group, link or site-space.
    expect(await outline(siteId, "published")).toEqual(["One"]);
    const published = (await org.owner.api.orgs.getPublishedContentSite(org.organizationId, siteId)).data.structure.structure as {
      siteSpaces: { id: string }[];
    }[];
    expect(published[0]!.siteSpaces.map((siteSpace) => siteSpace.id)).not.toContain(draftSpace.id);

    // Made live, they appear.
    await org.owner.api.orgs.updateSiteSectionGroupById(org.organizationId, siteId, group.id, { draft: false });
    await org.owner.api.orgs.updateSiteSpaceById(org.organizationId, siteId, draftSpace.id, { draft: false });
    expect(await outline(siteId, "published")).toEqual(["One", { Beta: ["Three"] }]);
    const live = (await org.owner.api.orgs.getPublishedContentSite(org.organizationId, siteId)).data.structure.structure as { siteSpaces: { id: string }[] }[];
    expect(live[0]!.siteSpaces.map((siteSpace) => siteSpace.id)).toContain(draftSpace.id);
  });
});

describe("site-space paths", () => {
  it("stay unique per level, even when two requests race for one path", async () => {
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Race" })).data;
    const ids: string[] = [];
    for (const title of ["Alpha", "Beta"]) {
      const space = await createSpace(stack, org, { title });
      ids.push((await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: space.id })).data.id);
    }
    const answers = await Promise.all(ids.map((id) => call(stack, "PATCH", `${sitePath(site.id)}/site-spaces/${id}`, owner({ path: "same" }))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const paths = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items.map((item) => item.path);
    expect(paths.filter((path) => path === "same")).toHaveLength(1);
  });
});

describe("a space's urls.published", () => {
  it("follows the sites that publish it: set on publish, moved with the basename and the path, gone when unpublished or removed", async () => {
    const space = await createSpace(stack, org, { title: "Followed" });
    const publishedOf = async () => ((await call(stack, "GET", `/v1/spaces/${space.id}`, owner())).body as { urls: { published?: string } }).urls.published;
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Follows", spaces: [space.id] })).data;
    expect(await publishedOf()).toBeUndefined();

    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const siteSpace = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items[0]!;
    await eventually(async () => (await publishedOf()) === siteSpace.urls.published);
    expect(siteSpace.urls.published).toMatch(new RegExp(`/${org.organizationId}/${site.id}/followed/$`));

    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "handbook" });
    await org.owner.api.orgs.updateSiteSpaceById(org.organizationId, site.id, siteSpace.id, { path: "v2" });
    await eventually(async () => (await publishedOf())?.endsWith(`/${org.organizationId}/handbook/v2/`));

    await org.owner.api.orgs.unpublishSite(org.organizationId, site.id);
    await eventually(async () => (await publishedOf()) === undefined);
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    await eventually(async () => (await publishedOf()) !== undefined);
    expect((await call(stack, "DELETE", `${sitePath(site.id)}/site-spaces/${siteSpace.id}`, owner())).status).toBe(204);
    await eventually(async () => (await publishedOf()) === undefined);
  });
});

describe("a space shown only inside a draft group", () => {
  it("has no urls.published until the group is live", async () => {
    const space = await createSpace(stack, org, { title: "Grouped" });
    const first = await createSpace(stack, org, { title: "Front" });
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Grouped site" })).data;
    await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: first.id, title: "Front" });
    const section = (await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: space.id, title: "Inner" })).data;
    const outer = (await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, site.id, { title: "Outer", draft: true })).data;
    await org.owner.api.orgs.addSectionGroupToSite(org.organizationId, site.id, { title: "Nested", parent: outer.id, sections: [section.id] });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const publishedOf = async (spaceId: string) =>
      ((await call(stack, "GET", `/v1/spaces/${spaceId}`, owner())).body as { urls: { published?: string } }).urls.published;
    await eventually(async () => (await publishedOf(first.id)) !== undefined);
    expect(await publishedOf(space.id)).toBeUndefined();
    await org.owner.api.orgs.updateSiteSectionGroupById(org.organizationId, site.id, outer.id, { draft: false });
    await eventually(async () => (await publishedOf(space.id))?.endsWith("/inner/grouped/"));
  });
});
