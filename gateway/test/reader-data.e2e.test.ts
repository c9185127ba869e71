import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import type { PromiseClient } from "@imprint/runtime";
import { eventually, failure, testClient } from "@imprint/runtime/testing";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * What the reader reads, with no caller: publishing's GetReaderSite (a published site's live
 * structure, by path or hostname) and CheckShareKey, content's published read (only spaces a
 * published site shows).
 */
let stack: TestStack;
let org: TestOrganization;
let published: PromiseClient<typeof PublishedContentServiceService>;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  published = testClient(PublishedContentServiceService, stack.contentAddress);
});
afterAll(async () => {
  published?.close();
  await stack?.stop();
});

const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });
const sitePath = (siteId: string) => `/v1/orgs/${org.organizationId}/sites/${siteId}`;

/** A space with two pages written through a merged change request, as any client writes content. */
async function spaceWithPages(title: string): Promise<string> {
  const space = await createSpace(stack, org, { title });
  const cr = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, owner({ subject: "Pages" }));
  const changes = [
    { operation: "insert_page", ref: "intro", slug: "intro", document: { markdown: "# Introduction\n\nHello.\n\n## Next\n\nSee [the guide](./guide.md)." } },
    { operation: "insert_page", ref: "guide", slug: "guide", document: { markdown: "# Guide\n\n```js\nrun();\n```" } },
  ];
  expect((await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${cr.body.id}/content`, owner({ changes }))).status).toBe(200);
  expect((await call(stack, "POST", `/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`, owner())).status).toBe(200);
  return space.id;
}

describe("the reader's data", () => {
  it("answers a published site's live structure by path and by hostname, and nothing for an unpublished one", async () => {
    const guide = await spaceWithPages("Guide space");
    const draft = await createSpace(stack, org, { title: "Draft space" });
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Reader site", spaces: [guide] })).data;
    const lookup = { hostname: "", organizationId: org.organizationId, site: site.id };
    expect((await failure(stack.clients.publishing.reader.getReaderSite(lookup))).code).toBe("not_found");

    await org.owner.api.orgs.addSpaceToSite(org.organizationId, site.id, { spaceId: draft.id, draft: true });
    // GitBook's client does not type `hostname` on the update: the REST call carries it.
    expect((await call(stack, "PATCH", sitePath(site.id), owner({ basename: "reader", hostname: "docs.reader.example.com" }))).status).toBe(200);
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const byId = await stack.clients.publishing.reader.getReaderSite(lookup);
    expect(byId).toMatchObject({ siteId: site.id, title: "Reader site", visibility: "public", basename: "reader", visitorAuthKey: "", items: [] });
    expect(byId.siteSpaces.map((siteSpace) => [siteSpace.spaceId, siteSpace.default])).toEqual([[guide, true]]);
    expect(JSON.parse(byId.customizationJson)).toMatchObject({ themes: { default: "system" } });
    expect((await stack.clients.publishing.reader.getReaderSite({ ...lookup, site: "reader" })).siteId).toBe(site.id);
    expect((await stack.clients.publishing.reader.getReaderSite({ hostname: "docs.reader.example.com", organizationId: "", site: "" })).siteId).toBe(site.id);

    // Visitor-auth sites answer their key; share keys are checked one by one.
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { visibility: "visitor-auth" as never });
    const auth = (await org.owner.api.orgs.getSitePublishingAuthById(org.organizationId, site.id)).data;
    expect((await stack.clients.publishing.reader.getReaderSite(lookup)).visitorAuthKey).toBe(auth.privateKey);
    const link = (await org.owner.api.orgs.createSiteShareLink(org.organizationId, site.id, { name: "Partners" })).data;
    const key = link.urls.published!.split("/").at(-2)!;
    expect((await stack.clients.publishing.reader.checkShareKey({ siteId: site.id, key })).active).toBe(true);
    await org.owner.api.orgs.updateSiteShareLinkById(org.organizationId, site.id, link.id, { active: false });
    expect((await stack.clients.publishing.reader.checkShareKey({ siteId: site.id, key })).active).toBe(false);

    await org.owner.api.orgs.unpublishSite(org.organizationId, site.id);
    expect((await failure(stack.clients.publishing.reader.getReaderSite(lookup))).code).toBe("not_found");
  });

  it("reads only spaces a published site shows: their page tree and pages", async () => {
    const spaceId = await spaceWithPages("Published space");
    expect((await failure(published.getPublishedSpace({ spaceId, knownRevisionId: "" }))).code).toBe("not_found");

    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Publishes it", spaces: [spaceId] })).data;
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const answer = await eventually(() => published.getPublishedSpace({ spaceId, knownRevisionId: "" }).catch(() => null));
    expect(answer).toMatchObject({ spaceId, organizationId: org.organizationId, title: "Published space", notModified: false });
    expect(answer.pages.map((page) => page.slug)).toEqual(["intro", "guide"]);
    expect((await published.getPublishedSpace({ spaceId, knownRevisionId: answer.revisionId })).notModified).toBe(true);

    const intro = answer.pages[0]!;
    const page = await published.getPublishedPage({ spaceId, revisionId: answer.revisionId, pageId: intro.id });
    expect(page.markdown).toContain("## Next");
    const document = JSON.parse(page.documentJson) as { object: string };
    expect(document.object).toBe("document");
    expect((await failure(published.getPublishedPage({ spaceId, revisionId: answer.revisionId, pageId: "no-such-page" }))).code).toBe("not_found");

    // Unpublished again, the space is no longer readable without a caller.
    await org.owner.api.orgs.unpublishSite(org.organizationId, site.id);
    await eventually(async () => (await failure(published.getPublishedSpace({ spaceId, knownRevisionId: "" }))).code === "not_found");
    expect((await call(stack, "GET", `${sitePath(site.id)}`, owner())).body).toMatchObject({ published: false });
  });
});
