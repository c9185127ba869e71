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

// GitBook's client types its enums; the values are the strings themselves.
const e = <T>(value: unknown) => value as T;
type Api = TestOrganization["owner"]["api"]["orgs"];

async function newSite(title: string, spaces: string[] = []) {
  return (await org.owner.api.orgs.createSite(org.organizationId, { title, spaces })).data;
}

/** A site's customization as GitBook answers it, without its time. */
async function customizationOf(siteId: string): Promise<Record<string, unknown>> {
  const { updatedAt: _updatedAt, ...settings } = (await call(stack, "GET", `${sitePath(siteId)}/customization`, owner())).body as Record<string, unknown>;
  return settings;
}

describe("site customization", () => {
  it("answers GitBook's defaults until an admin sets one, then stores it whole, with GitBook's client", async () => {
    const site = await newSite("Styled");
    const defaults = (await org.owner.api.orgs.getSiteCustomizationById(org.organizationId, site.id)).data;
    expect(defaults).not.toHaveProperty("updatedAt");
    expect(defaults).toMatchObject({
      themes: { default: "system", toggeable: true },
      pagination: { enabled: true },
      trademark: { enabled: false },
      header: { links: [] },
    });

    const wanted = {
      ...defaults,
      title: "Acme Docs",
      styling: { ...defaults.styling, primaryColor: { light: "#0A7C66", dark: "#35D0B0" } },
      header: { preset: "default" as const, links: [{ title: "Status", to: { kind: "url" as const, url: "https://status.example.com" }, links: [] }] },
      footer: {
        groups: [{ title: "Company", links: [{ title: "About", to: { kind: "url" as const, url: "https://example.com/about" } }] }],
        copyright: "© Acme",
      },
    };
    const updated = (
      await org.owner.api.orgs.updateSiteCustomizationById(org.organizationId, site.id, e<Parameters<Api["updateSiteCustomizationById"]>[2]>(wanted))
    ).data;
    expect(updated.updatedAt).toEqual(expect.any(String));
    expect(await customizationOf(site.id)).toEqual(wanted);
    // Members read it; `unmasked` (deprecated) is accepted.
    expect((await call(stack, "GET", `${sitePath(site.id)}/customization?unmasked=true`, { token: editor.token })).body).toMatchObject({ title: "Acme Docs" });
  });

  it("refuses what GitBook's schema does not allow, naming the path, and keeps what was stored", async () => {
    const site = await newSite("Checked");
    const base = e<Record<string, unknown>>((await org.owner.api.orgs.getSiteCustomizationById(org.organizationId, site.id)).data);
    const styling = base.styling as Record<string, unknown>;
    const header = base.header as Record<string, unknown>;
    const cases: [unknown, string][] = [
      [{ ...base, colour: "red" }, "colour: is not a customization setting"],
      [{ ...base, header: { ...header, sticky: true } }, "header.sticky: is not a customization setting"],
      [
        { ...base, styling: { ...styling, primaryColor: { light: "teal", dark: "#000000" } } },
        "styling.primaryColor.light: must be a hex colour such as #346DDB",
      ],
      [{ ...base, styling: { ...styling, corners: "round" } }, 'styling.corners: must be one of "straight", "rounded", "circular"'],
      [{ ...base, favicon: { icon: { light: "not a url", dark: "https://example.com/d.png" } } }, "favicon.icon.light: must be an absolute URL"],
      [{ styling }, "internationalization: is required"],
      [{ ...base, footer: { groups: [], copyright: "x".repeat(513) } }, "footer.copyright: must NOT have more than 512 characters"],
      [{ ...base, title: "t".repeat(70_000) }, "body: must be at most 64 KiB of JSON"],
    ];
    for (const [body, message] of cases) {
      const response = await call(stack, "PUT", `${sitePath(site.id)}/customization`, owner(body));
      expect([response.status, response.body]).toEqual([400, { error: { code: 400, message } }]);
    }
    expect((await call(stack, "PUT", `${sitePath(site.id)}/customization`, owner([base]))).status).toBe(400);
    expect(await customizationOf(site.id)).toEqual(base);
  });

  it("lets only admins change it, and other organizations find nothing", async () => {
    const site = await newSite("Guarded");
    const base = (await org.owner.api.orgs.getSiteCustomizationById(org.organizationId, site.id)).data;
    expect((await call(stack, "PUT", `${sitePath(site.id)}/customization`, { token: editor.token, json: base })).status).toBe(403);
    const siteSpaces = `${sitePath(site.id)}/site-spaces/00000000-0000-4000-8000-000000000000/customization`;
    for (const [method, path, json] of [
      ["GET", `${sitePath(site.id, other.organizationId)}/customization`],
      ["PUT", `${sitePath(site.id, other.organizationId)}/customization`, base],
      ["GET", `${sitePath(site.id, other.organizationId)}/published`],
      ["GET", siteSpaces],
      ["PATCH", siteSpaces, { title: "Version 2" }],
      ["DELETE", siteSpaces],
    ] as const) {
      const token = path.includes(other.organizationId) ? other.owner.token : org.owner.token;
      const response = await call(stack, method, path, { token, ...(json === undefined ? {} : { json }) });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
  });

  it("overrides settings per site-space: given ones replace the site's, null resets one, delete removes all", async () => {
    const space = await createSpace(stack, org, { title: "Version 2" });
    const site = await newSite("Variants", [space.id]);
    const siteSpace = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items[0]!;
    const path = `${sitePath(site.id)}/site-spaces/${siteSpace.id}/customization`;

    const none = (await org.owner.api.orgs.getSiteSpaceCustomizationById(org.organizationId, site.id, siteSpace.id)).data;
    expect(none).toMatchObject({ hasOverrides: false, styling: { primaryColor: { light: "#346DDB" } } });

    const overridden = (
      await org.owner.api.orgs.overrideSiteSpaceCustomizationById(
        org.organizationId,
        site.id,
        siteSpace.id,
        e<Parameters<Api["overrideSiteSpaceCustomizationById"]>[3]>({
          title: "Docs v2",
          styling: { primaryColor: { light: "#AA0000", dark: "#FF5555" }, sidebar: { list: "pill" } },
        }),
      )
    ).data;
    expect(overridden).toMatchObject({
      hasOverrides: true,
      title: "Docs v2",
      styling: { primaryColor: { light: "#AA0000" }, sidebar: { list: "pill", background: "default" }, theme: "clean" },
    });

    const reset = (await call(stack, "PATCH", path, owner({ title: null, styling: { sidebar: { list: null } } }))).body;
    expect(reset).toMatchObject({ hasOverrides: true, styling: { primaryColor: { light: "#AA0000" }, sidebar: { list: "default" } } });
    expect(reset).not.toHaveProperty("title");
    const refused = await call(stack, "PATCH", path, owner({ styling: { glow: true } }));
    expect([refused.status, refused.body]).toEqual([400, { error: { code: 400, message: "styling.glow: is not a customization setting" } }]);
    expect((await call(stack, "PATCH", path, { token: editor.token, json: { title: "Nope" } })).status).toBe(403);

    expect((await call(stack, "DELETE", path, owner())).status).toBe(205);
    expect((await call(stack, "DELETE", path, owner())).status).toBe(204);
    expect((await call(stack, "GET", path, owner())).body).toMatchObject({ hasOverrides: false, styling: { primaryColor: { light: "#346DDB" } } });
  });
});

describe("the published view (getPublishedContentSite)", () => {
  it("answers the site, its structure and its customizations as GitBook's PublishedContentSite", async () => {
    const guide = await createSpace(stack, org, { title: "Guide" });
    const api = await createSpace(stack, org, { title: "API" });
    const site = await newSite("Published view", [guide.id]);
    await org.owner.api.orgs.addSectionToSite(org.organizationId, site.id, { spaceId: api.id, title: "API reference" });
    const structure = (await org.owner.api.orgs.getSiteStructure(org.organizationId, site.id)).data;
    const apiSiteSpace = (await org.owner.api.orgs.listSiteSpaces(org.organizationId, site.id)).data.items.find((item) => item.space.id === api.id)!;
    await org.owner.api.orgs.overrideSiteSpaceCustomizationById(org.organizationId, site.id, apiSiteSpace.id, { title: "API docs" });

    const published = (await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data;
    expect(published.object).toBe("published-content-site");
    expect(published.site).toMatchObject({ id: site.id, title: "Published view", siteSpaces: 2 });
    expect(published.structure).toEqual(structure);
    expect(published.customizations.site).toEqual((await org.owner.api.orgs.getSiteCustomizationById(org.organizationId, site.id)).data);
    expect(Object.keys(published.customizations.siteSpaces)).toEqual([apiSiteSpace.id]);
    expect(published.customizations.siteSpaces[apiSiteSpace.id]).toMatchObject({ title: "API docs", styling: { theme: "clean" } });
    expect(published.scripts).toEqual([]);
    // Members read it too.
    expect((await call(stack, "GET", `${sitePath(site.id)}/published`, { token: editor.token })).status).toBe(200);
  });

  it("follows content (a deleted space leaves it, and comes back on restore) and refuses an inactive share key", async () => {
    const first = await createSpace(stack, org, { title: "Kept" });
    const second = await createSpace(stack, org, { title: "Deleted" });
    const site = await newSite("Published follows", [first.id, second.id]);
    const spacesOf = async () =>
      ((await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id)).data.structure.structure as { space: { id: string } }[]).map(
        (item) => item.space.id,
      );
    expect(await spacesOf()).toEqual([first.id, second.id]);
    expect((await call(stack, "DELETE", `/v1/spaces/${second.id}`, owner())).status).toBe(204);
    await eventually(async () => (await spacesOf()).length === 1);
    expect(await spacesOf()).toEqual([first.id]);
    expect((await call(stack, "POST", `/v1/spaces/${second.id}/restore`, owner())).status).toBe(200);
    await eventually(async () => (await spacesOf()).length === 2);

    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { visibility: e("share-link") });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "Partners" })).data;
    // GitBook's convention: the key is the path segment after the site's base path.
    const key = link.urls.published!.split("/").at(-2)!;
    const through = (await org.owner.api.orgs.getPublishedContentSite(org.organizationId, site.id, { shareKey: key })).data;
    expect((through.structure.structure[0] as { urls: { published?: string } }).urls.published).toContain(`/${key}/`);
    await org.owner.api.orgs.updateSiteShareLinkById(org.organizationId, site.id, link.id, { active: false });
    expect((await call(stack, "GET", `${sitePath(site.id)}/published?shareKey=${key}`, owner())).status).toBe(400);
  });
});
