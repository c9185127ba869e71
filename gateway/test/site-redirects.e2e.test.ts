import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReaderHandle } from "@imprint/reader";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, type TestOrganization, type TestUser } from "./support/factories.js";
import { call } from "./support/http.js";
import { publishSampleSite, startTestReader, writeContent, type SampleSite } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * Site redirects through GitBook's client (every answer checked against GitBook's schema), their
 * refusals, and the reader following them (with events, as deployed).
 */
let stack: TestStack;
let org: TestOrganization;
let other: TestOrganization;
let editor: TestUser;
let reader: ReaderHandle;
let siteId: string;
let base: string;
let spaces: SampleSite["spaces"];
let guideSiteSpaceId: string;
let installPageId: string;

const redirectsPath = (organizationId = org.organizationId) => `/v1/orgs/${organizationId}/sites/${siteId}/redirects`;
const read = (path: string) => fetch(`${reader.url}${path}`, { redirect: "manual" });
// GitBook's client types its enums and branded strings; the values are the strings themselves.
const e = <T>(value: unknown) => value as T;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  other = await createOrganization(stack);
  editor = await createMember(stack, org, { role: "edit" });
  reader = await startTestReader(stack, { events: true });
  ({ siteId, base, spaces } = await publishSampleSite(stack, org, "moved", reader.url));
  const siteSpaces = await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${siteId}/site-spaces`, { token: org.owner.token });
  guideSiteSpaceId = siteSpaces.body.items.find((item: { space: { id: string } }) => item.space.id === spaces.guide).id;
  const pages = await call(stack, "GET", `/v1/spaces/${spaces.guide}/content/pages`, { token: org.owner.token });
  installPageId = pages.body.pages.find((page: { path: string }) => page.path === "install").id;
}, 120_000);
afterAll(async () => {
  await reader?.stop();
  await stack?.stop();
});

describe("site redirects", () => {
  it("creates (201 + Location), lists, resolves by source, updates and deletes (205, then 204) with GitBook's client", async () => {
    const api = org.owner.api.orgs;
    const created = await call(stack, "POST", redirectsPath(), {
      token: org.owner.token,
      json: { source: "/setup", permanent: true, destination: { kind: "site-page", siteSpaceId: guideSiteSpaceId, pageId: installPageId } },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${stack.baseUrl}${redirectsPath()}/${created.body.id}`);
    expect(created.body).toMatchObject({
      object: "site-redirect",
      source: "/setup",
      draft: false,
      permanent: true,
      captureWildcard: false,
      destination: { kind: "site-page", siteSpaceId: guideSiteSpaceId, pageId: installPageId },
    });
    expect(created.body.updatedAt).toBeUndefined();

    const byPath = (
      await api.createSiteRedirect(org.organizationId, siteId, {
        source: e("/old/configure"),
        destination: e({ kind: "path", spaceId: spaces.guide, path: "configure" }),
      })
    ).data;
    expect(byPath.destination).toMatchObject({ kind: "site-page", siteSpaceId: guideSiteSpaceId });

    const listed = (await api.listSiteRedirects(org.organizationId, siteId, { orderBy: e("source") })).data.items.map((item) => item.source);
    expect(listed).toEqual(expect.arrayContaining(["/old/configure", "/setup"]));
    expect(listed.indexOf("/old/configure")).toBeLessThan(listed.indexOf("/setup"));
    expect((await editor.api.orgs.listSiteRedirects(org.organizationId, siteId, { search: "setup" })).data.items.map((item) => item.id)).toEqual([
      created.body.id,
    ]);

    const resolved = (await api.getSiteRedirectBySource(org.organizationId, siteId, { source: e("/setup") })).data;
    expect(resolved.redirect.id).toBe(created.body.id);
    expect(resolved.target).toMatch(new RegExp(`/${org.organizationId}/moved/install$`));
    expect((await call(stack, "GET", `/v1/orgs/${org.organizationId}/sites/${siteId}/redirect?source=/nowhere`, { token: org.owner.token })).status).toBe(404);

    const updated = (await api.updateSiteRedirectById(org.organizationId, siteId, byPath.id, { permanent: true })).data;
    expect(updated).toMatchObject({ permanent: true, source: "/old/configure" });
    expect(updated.updatedAt).toEqual(expect.any(String));

    expect((await api.deleteSiteRedirectById(org.organizationId, siteId, byPath.id)).status).toBe(205);
    expect((await api.deleteSiteRedirectById(org.organizationId, siteId, byPath.id)).status).toBe(204);
  });

  it("bulk upserts: created, updated, deleted, published and error results, each as GitBook's schema says", async () => {
    const api = org.owner.api.orgs;
    const external = { kind: "external", url: "https://example.com/elsewhere" };
    const first = (
      await api.bulkUpsertSiteRedirects(org.organizationId, siteId, {
        redirects: e([
          { source: "/bulk-live", destination: external },
          { source: "/bulk-draft", intent: "draft", destination: external, permanent: true },
          { source: "/bulk-bad", destination: { kind: "site-space", siteSpaceId: "no-such-site-space" } },
        ]),
      })
    ).data;
    expect(first.results.map((result) => result.status)).toEqual(["created", "created", "error"]);
    expect(first.results[2]).toMatchObject({ status: "error", source: "/bulk-bad", error: expect.stringContaining("redirects[2].destination.siteSpaceId") });
    const second = (
      await api.bulkUpsertSiteRedirects(org.organizationId, siteId, {
        redirects: e([
          { source: "/bulk-live", destination: { kind: "site-space", siteSpaceId: guideSiteSpaceId } },
          { source: "/bulk-draft", intent: "publish" },
          { source: "/bulk-live", destination: null },
        ]),
      })
    ).data;
    expect(second.results.map((result) => result.status)).toEqual(["updated", "published", "deleted"]);
    expect((await api.listSiteRedirects(org.organizationId, siteId, { draft: true })).data.items).toEqual([]);
  });

  it("refuses another organization (404), editors' writes (403) and bad input (400 naming the field), and enforces the limits", async () => {
    const owner = { token: org.owner.token };
    const external = { kind: "external", url: "https://example.com/" };
    const created = await call(stack, "POST", redirectsPath(), { ...owner, json: { source: "/guarded", destination: external } });
    expect(created.status).toBe(201);
    const otherOwner = { token: other.owner.token };
    expect((await call(stack, "GET", redirectsPath(), otherOwner)).status).toBe(404);
    expect((await call(stack, "GET", redirectsPath(other.organizationId), otherOwner)).status).toBe(404);
    expect((await call(stack, "POST", redirectsPath(other.organizationId), { ...otherOwner, json: { source: "/x", destination: external } })).status).toBe(404);
    expect((await call(stack, "PATCH", `${redirectsPath(other.organizationId)}/${created.body.id}`, { ...otherOwner, json: { permanent: true } })).status).toBe(
      404,
    );

    expect((await call(stack, "POST", redirectsPath(), { token: editor.token, json: { source: "/x", destination: external } })).status).toBe(403);
    expect((await call(stack, "DELETE", `${redirectsPath()}/${created.body.id}`, { token: editor.token })).status).toBe(403);
    expect((await call(stack, "GET", redirectsPath(), { token: editor.token })).status).toBe(200);

    const refusals: [body: unknown, field: string][] = [
      [{ source: "no-slash", destination: external }, "source"],
      [{ source: `/${"a".repeat(600)}`, destination: external }, "source"],
      [{ source: "/x" }, "destination"],
      [{ source: "/x", destination: { kind: "teleport" } }, "destination.kind"],
      [{ source: "/x", destination: { kind: "external", url: "javascript:alert(1)" } }, "destination.url"],
      [{ source: "/x", destination: { kind: "site-section" } }, "destination.siteSectionId"],
      [{ source: "/x", permanent: "yes", destination: external }, "permanent"],
    ];
    for (const [json, field] of refusals) {
      const response = await call(stack, "POST", redirectsPath(), { ...owner, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    expect((await call(stack, "POST", redirectsPath(), { ...owner, json: { source: "/guarded", destination: external } })).status).toBe(409);
    const badOrder = await call(stack, "GET", `${redirectsPath()}?orderBy=title`, owner);
    expect(badOrder.status).toBe(400);
    expect(badOrder.body.error.message).toContain("orderBy");

    const tooMany = Array.from({ length: 501 }, (_, index) => ({ source: `/many-${index}`, destination: external }));
    const refusedBulk = await call(stack, "PUT", redirectsPath(), { ...owner, json: { redirects: tooMany } });
    expect(refusedBulk.status).toBe(400);
    expect(refusedBulk.body.error.message).toContain("redirects");
    const emptyBulk = await call(stack, "PUT", redirectsPath(), { ...owner, json: { redirects: [] } });
    expect(emptyBulk.status).toBe(400);
    expect(emptyBulk.body.error.message).toContain("redirects");
    const noDestination = await call(stack, "PUT", redirectsPath(), { ...owner, json: { redirects: [{ source: "/x" }] } });
    expect(noDestination.status).toBe(400);
    expect(noDestination.body.error.message).toContain("destination");
  });

  it("the reader answers a redirected path with 308 or 307 to its target, query string kept, and only where no page is", async () => {
    const api = org.owner.api.orgs;
    await api.createSiteRedirect(org.organizationId, siteId, {
      source: e("/getting-started"),
      permanent: true,
      destination: e({ kind: "site-page", siteSpaceId: guideSiteSpaceId, pageId: installPageId }),
    });
    await api.createSiteRedirect(org.organizationId, siteId, {
      source: e("/docs/*"),
      captureWildcard: true,
      destination: e({ kind: "external", url: "https://archive.example.com/docs" }),
    });
    // A redirect from a page's own path never hides the page.
    await api.createSiteRedirect(org.organizationId, siteId, { source: e("/configure"), destination: e({ kind: "external", url: "https://example.com/" }) });

    const permanent = await eventually(async () => {
      const response = await read(`${base}getting-started?utm_source=mail&x=1`);
      return response.status === 308 ? response : undefined;
    }, 10_000);
    expect(permanent.headers.get("location")).toBe(`${base}install?utm_source=mail&x=1`);
    const temporary = await read(`${base}docs/v1/intro?lang=en`);
    expect(temporary.status).toBe(307);
    expect(temporary.headers.get("location")).toBe("https://archive.example.com/docs/v1/intro?lang=en");
    expect((await read(`${base}configure`)).status).toBe(200);
    expect((await read(`${base}never-was`)).status).toBe(404);

    // A change reaches the reader through publishing's events.
    const redirect = (await api.listSiteRedirects(org.organizationId, siteId, { search: "getting-started" })).data.items[0]!;
    await api.updateSiteRedirectById(org.organizationId, siteId, redirect.id, { permanent: false });
    await eventually(async () => (await read(`${base}getting-started`)).status === 307, 10_000);
    await api.deleteSiteRedirectById(org.organizationId, siteId, redirect.id);
    await eventually(async () => (await read(`${base}getting-started`)).status === 404, 10_000);
  });

  it("records a redirect when a published page is renamed: listed with the others, and the old link keeps working", async () => {
    await writeContent(stack, org, spaces.guide, [{ operation: "update_page", page: installPageId, slug: "installation" }]);
    const api = org.owner.api.orgs;
    const recorded = await eventually(async () => {
      const items = (await api.listSiteRedirects(org.organizationId, siteId, { search: "/install" })).data.items;
      return items.find((item) => item.source === "/install");
    }, 15_000);
    expect(recorded).toMatchObject({ permanent: true, draft: false, destination: { kind: "site-page", siteSpaceId: guideSiteSpaceId, pageId: installPageId } });
    const followed = await eventually(async () => {
      const response = await read(`${base}install?ref=old-link`);
      return response.status === 308 ? response : undefined;
    }, 10_000);
    expect(followed.headers.get("location")).toBe(`${base}installation?ref=old-link`);
    expect((await read(`${base}installation`)).status).toBe(200);
  });
});
