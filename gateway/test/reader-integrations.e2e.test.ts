import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReaderHandle } from "@imprint/reader";
import { eventually } from "@imprint/runtime/testing";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call, type GitBookClient } from "./support/http.js";
import { pagesOf, startTestReader, writeContent } from "./support/reader.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The reader with the integration service, on the real stack: a published site's pages load the
 * scripts of the integrations installed on it (served by the gateway), its page views reach the
 * integrations reading them as `site_view` events, and its "Was this page helpful?" form the
 * integrations reading feedback as `page_feedback` events; both are counted in the site's insights.
 */
let stack: TestStack;
let org: TestOrganization;
let reader: ReaderHandle;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  // As deployed: the reader keeps sites' scripts until the integration context's events say they changed.
  reader = await startTestReader(stack, { events: true, env: { INTEGRATION_GRPC_ADDRESS: stack.integrationAddress } });
});
afterAll(async () => {
  await reader?.stop();
  await stack?.stop();
});

const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });
const read = (path: string, init: RequestInit = {}) => fetch(`${reader.url}${path}`, { redirect: "manual", ...init });

/** Serves its site script, and logs each page view it hears. */
const SCRIPT = `export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get("event"));
    if (event.type === "fetch_published_script") {
      return new Response("window.__imprintInjected = true;", { headers: { "content-type": "application/javascript" } });
    }
    if (event.type === "page_feedback") {
      console.log("feedback " + event.feedback.rating + " " + event.url);
      return new Response("OK");
    }
    console.log("view " + event.url);
    return new Response("OK");
  },
};`;

/** An aggregation query as GitBook's client types it. */
const aggregation = (query: unknown) => query as Parameters<GitBookClient["orgs"]["aggregateSiteEvents"]>[2];

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";

interface RestEvent {
  id: string;
  status: string;
  payload: {
    type: string;
    url?: string;
    siteId?: string;
    pageId?: string;
    referrer?: string;
    visitor?: { anonymousId?: string; userAgent?: string; language?: string };
    feedback?: { rating: string; comment?: string };
  };
}

/** The integration's events (newest first, one page is plenty here). */
async function integrationEvents(name: string): Promise<RestEvent[]> {
  const listed = await call(stack, "GET", `/v1/integrations/${name}/events?limit=100`, owner());
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.items as RestEvent[];
}

describe("the reader with integrations", () => {
  it("loads a site's integration scripts in its pages and reports its page views to the integration", async () => {
    const space = await createSpace(stack, org, { title: "Widgets" });
    await writeContent(
      stack,
      org,
      space.id,
      pagesOf([
        ["welcome", "# Welcome\n\nStart here."],
        ["install", "# Install\n\nRun the installer."],
      ]),
    );
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Widgets docs", spaces: [space.id] })).data;
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "widgets" });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const base = `/${org.organizationId}/widgets/`;
    await eventually(async () => (await read(base)).status === 200);
    expect(await (await read(base)).text()).not.toContain("script.js");

    const name = `reader-views-${org.organizationId.slice(0, 8)}`;
    const published = await call(
      stack,
      "POST",
      `/v1/integrations/${name}`,
      owner({
        title: "Views",
        description: "Counts page views",
        scopes: ["site:views:read", "site:script:inject"],
        script: SCRIPT,
        organization: org.organizationId,
        contentSecurityPolicy: "script-src 'self'",
      }),
    );
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const installed = await call(stack, "POST", `/v1/integrations/${name}/installations`, owner({ organization: org.organizationId }));
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const installationId = installed.body.id as string;
    const onSite = await call(stack, "POST", `/v1/integrations/${name}/installations/${installationId}/sites`, owner({ siteId: site.id }));
    expect(onSite.status, JSON.stringify(onSite.body)).toBe(201);

    // The site installation's event drops what the reader kept of the site's scripts.
    const scriptUrl = `${stack.baseUrl}/v1/integrations/${name}/installations/${installationId}/sites/${site.id}/script.js`;
    const html = await eventually(async () => {
      const text = await (await read(base)).text();
      return text.includes(scriptUrl) && text;
    });
    expect(html).toContain(`<script src="${scriptUrl}" async></script></body>`);
    // The page's policy lets exactly that script run.
    const policy = (await read(base)).headers.get("content-security-policy") ?? "";
    expect(
      policy
        .split("; ")
        .find((directive) => directive.startsWith("script-src "))
        ?.split(" "),
    ).toContain(scriptUrl);

    // Not page views: a crawler, the markdown, a HEAD. Then one visitor's view of the install page.
    expect((await read(`${base}install?from=crawler`, { headers: { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1)" } })).status).toBe(200);
    expect((await read(`${base}install.md?from=markdown`, { headers: { "user-agent": BROWSER } })).status).toBe(200);
    expect((await read(`${base}install?from=head`, { method: "HEAD", headers: { "user-agent": BROWSER } })).status).toBe(200);
    const viewed = await read(`${base}install?from=search&jwt_token=not-a-token`, {
      headers: { "user-agent": BROWSER, "accept-language": "fr-FR,fr;q=0.9,en;q=0.8", referer: "https://search.example.com/?q=widgets" },
    });
    expect(viewed.status).toBe(200);
    expect(await viewed.text()).toContain(scriptUrl);
    // The visitor's URL as they reached it, without the visitor token a first visit may carry.
    const viewUrl = `${reader.url}${base}install?from=search`;

    const event = await eventually(
      async () => (await integrationEvents(name)).find((candidate) => candidate.payload.type === "site_view" && candidate.payload.url === viewUrl),
      30_000,
    );
    expect(event.status).toBe("success");
    expect(event.payload).toMatchObject({
      siteId: site.id,
      referrer: "https://search.example.com/?q=widgets",
      visitor: { userAgent: BROWSER, language: "fr-FR" },
    });
    expect(event.payload.pageId).toEqual(expect.any(String));
    expect(event.payload.visitor?.anonymousId).toMatch(/^[\w-]{16,}$/);
    const detail = await call(stack, "GET", `/v1/integrations/${name}/events/${event.id}`, owner());
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect((detail.body.trace.logs as { message: string }[]).map((line) => line.message)).toContain(`view ${viewUrl}`);

    // Sent in the same batch or before, had they been views.
    const urls = (await integrationEvents(name)).filter((candidate) => candidate.payload.type === "site_view").map((candidate) => candidate.payload.url ?? "");
    expect(urls.filter((url) => url.includes("from="))).toEqual([viewUrl]);

    // The gateway serves the script, with the integration's Content-Security-Policy (and beside it
    // the sandbox of every answer a script writes).
    const script = await fetch(scriptUrl);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("application/javascript");
    expect(script.headers.get("content-security-policy")).toBe(
      "script-src 'self', sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox",
    );
    expect(await script.text()).toBe("window.__imprintInjected = true;");

    // Uninstalled from the site, its script leaves the pages.
    const removed = await call(stack, "DELETE", `/v1/integrations/${name}/installations/${installationId}/sites/${site.id}`, owner());
    expect(removed.status).toBe(205);
    await eventually(async () => !(await (await read(base)).text()).includes(scriptUrl));
  });
  it("replays a public page's whole answer while events flow: the same bytes and headers, 304, HEAD, its views, the new page after a change", async () => {
    const space = await createSpace(stack, org, { title: "Kept" });
    await writeContent(stack, org, space.id, pagesOf([["guide", "# Guide\n\nThe first words."]]));
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Kept docs", spaces: [space.id] })).data;
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "kept" });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const name = `reader-kept-${org.organizationId.slice(0, 8)}`;
    const published = await call(
      stack,
      "POST",
      `/v1/integrations/${name}`,
      owner({ title: "Kept views", description: "Counts page views", scopes: ["site:views:read"], script: SCRIPT, organization: org.organizationId }),
    );
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const installed = await call(stack, "POST", `/v1/integrations/${name}/installations`, owner({ organization: org.organizationId }));
    expect((await call(stack, "POST", `/v1/integrations/${name}/installations/${installed.body.id}/sites`, owner({ siteId: site.id }))).status).toBe(201);
    const page = `/${org.organizationId}/kept/guide`;
    await eventually(async () => (await read(page)).status === 200);

    // Read through Koa once (or more, while events settle), then replayed: byte for byte, headers too.
    const visit = (referer: string, init: RequestInit = {}) => read(page, { ...init, headers: { "user-agent": BROWSER, referer, ...init.headers } });
    const first = await visit("https://one.example/");
    const firstBody = Buffer.from(await first.arrayBuffer());
    const kept = await visit("https://two.example/");
    expect(kept.status).toBe(200);
    expect(Buffer.from(await kept.arrayBuffer()).equals(firstBody)).toBe(true);
    for (const header of ["content-type", "content-length", "etag", "cache-control", "vary"])
      expect(kept.headers.get(header), header).toBe(first.headers.get(header));
    const head = await visit("https://head.example/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(first.headers.get("content-length"));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const held = await visit("https://three.example/", { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(held.status).toBe(304);
    expect(held.headers.get("etag")).toBe(first.headers.get("etag"));

    // Every GET answered is a view, kept or not (the HEAD is none).
    const referrers = await eventually(async () => {
      const views = (await integrationEvents(name)).filter((event) => event.payload.type === "site_view" && event.payload.siteId === site.id);
      const seen = new Set(views.map((event) => event.payload.referrer));
      return ["https://one.example/", "https://two.example/", "https://three.example/"].every((referrer) => seen.has(referrer)) && seen;
    }, 30_000);
    expect(referrers.has("https://head.example/")).toBe(false);

    // A new revision's event drops the kept answer: the new page follows.
    const guide = (await org.owner.api.spaces.getPageByPath(space.id, "guide")).data;
    await writeContent(stack, org, space.id, [{ operation: "update_page", page: guide.id, document: { markdown: "# Guide\n\nThe second words." } }]);
    await eventually(async () => (await (await read(page)).text()).includes("The second words."));
    expect(await (await read(page)).text()).not.toContain("The first words.");
  });

  it("takes 'Was this page helpful?' without script: page_feedback to the integrations, counted with page views (bots left out) in the site's insights", async () => {
    const space = await createSpace(stack, org, { title: "Rated" });
    await writeContent(stack, org, space.id, pagesOf([["guide", "# Guide\n\nRate me."]]));
    const site = (await org.owner.api.orgs.createSite(org.organizationId, { title: "Rated docs", spaces: [space.id] })).data;
    await org.owner.api.orgs.updateSiteById(org.organizationId, site.id, { basename: "rated" });
    await org.owner.api.orgs.publishSite(org.organizationId, site.id);
    const page = `/${org.organizationId}/rated/guide`;
    const post = (body: string, headers: Record<string, string> = {}) =>
      read(page, {
        method: "POST",
        body,
        headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": BROWSER, origin: new URL(reader.url).origin, ...headers },
      });
    await eventually(async () => (await read(page)).status === 200);
    // Feedback off (the default): no form, and a post is any other POST.
    expect(await (await read(page)).text()).not.toContain('class="feedback"');
    expect((await post("rating=good")).status).toBe(405);

    const name = `reader-feedback-${org.organizationId.slice(0, 8)}`;
    const published = await call(
      stack,
      "POST",
      `/v1/integrations/${name}`,
      owner({ title: "Feedback", description: "Reads page feedback", scopes: ["page:feedback:read"], script: SCRIPT, organization: org.organizationId }),
    );
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const installed = await call(stack, "POST", `/v1/integrations/${name}/installations`, owner({ organization: org.organizationId }));
    expect((await call(stack, "POST", `/v1/integrations/${name}/installations/${installed.body.id}/sites`, owner({ siteId: site.id }))).status).toBe(201);

    const customization = (await org.owner.api.orgs.getSiteCustomizationById(org.organizationId, site.id)).data;
    await org.owner.api.orgs.updateSiteCustomizationById(org.organizationId, site.id, { ...customization, feedback: { enabled: true } });
    const html = await eventually(async () => {
      const text = await (await read(page)).text();
      return text.includes('class="feedback"') && text;
    });
    expect(html).toContain('<form method="post">');

    // Another origin's post (or one that names none) is refused; a bad rating is named.
    expect((await post("rating=good", { origin: "https://elsewhere.example" })).status).toBe(403);
    expect((await post("rating=good", { origin: "" })).status).toBe(403);
    const badRating = await post("rating=great");
    expect(badRating.status).toBe(400);
    expect(await badRating.text()).toContain("rating");

    // The form's post: 303 back to the page's thank-you note.
    const sent = await post(new URLSearchParams({ rating: "good", comment: "Clear enough." }).toString());
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(`${page}#feedback-sent`);
    const event = await eventually(
      async () => (await integrationEvents(name)).find((candidate) => candidate.payload.type === "page_feedback" && candidate.payload.siteId === site.id),
      30_000,
    );
    expect(event.status).toBe("success");
    expect(event.payload).toMatchObject({
      feedback: { rating: "good", comment: "Clear enough." },
      url: `${reader.url}${page}`,
      visitor: { userAgent: BROWSER },
    });
    expect(event.payload.pageId).toEqual(expect.any(String));

    // One visitor's view, and a crawler's (not a view); the reads above were an HTTP client's (not views either).
    expect((await read(page, { headers: { "user-agent": BROWSER } })).status).toBe(200);
    expect((await read(page, { headers: { "user-agent": "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)" } })).status).toBe(200);
    // A page view tracked through the API, posted twice with its time: counted once.
    const pageId = event.payload.pageId!;
    const tracked = {
      type: "page_view" as const,
      session: { visitorId: "v1", sessionId: "s1", cookies: {}, userAgent: BROWSER, language: "en", referrer: "" as const },
      location: { url: `${reader.url}${page}`, siteSection: null, siteSpace: null, siteShareKey: null, space: space.id, revision: null, page: pageId },
      timestamp: new Date().toISOString(),
    };
    for (let attempt = 0; attempt < 2; attempt += 1)
      expect((await org.owner.api.orgs.trackEventsInSiteById(org.organizationId, site.id, { events: [tracked] })).status).toBe(204);
    // A type Imprint does not count is refused, naming it.
    const unknown = await call(
      stack,
      "POST",
      `/v1/orgs/${org.organizationId}/sites/${site.id}/insights/events`,
      owner({ events: [{ ...tracked, type: "ad_click" }] }),
    );
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("type");

    // GitBook's client types enums; the JSON is the same.
    const query = aggregation({
      range: "last24Hours",
      groupBy: [{ column: "page" }, { column: "eventType" }],
      select: [{ column: "page" }, { column: "eventType" }, { column: "eventsCount" }, { column: "pageFeedbackRating" }],
      order: { by: { column: "eventType" }, direction: "asc" },
    });
    const counts = await eventually(async () => {
      const { columns } = (await org.owner.api.orgs.aggregateSiteEvents(org.organizationId, site.id, query)).data;
      const counted = columns.find((column) => column.column === "eventsCount")!.values;
      return counted.length === 2 && counted[1] === 2 && columns;
    }, 30_000);
    expect(counts).toEqual([
      {
        column: "page",
        values: [
          { page: pageId, space: space.id },
          { page: pageId, space: space.id },
        ],
      },
      { column: "eventType", values: ["page_post_feedback_comment", "page_view"] },
      { column: "eventsCount", values: [1, 2] },
      {
        column: "pageFeedbackRating",
        values: [
          { good: 1, ok: 0, bad: 0 },
          { good: 0, ok: 0, bad: 0 },
        ],
      },
    ]);
    // By day: today's events.
    const byDay = (
      await org.owner.api.orgs.aggregateSiteEvents(
        org.organizationId,
        site.id,
        aggregation({ range: "last7Days", groupBy: [{ column: "datetime", interval: "day" }] }),
      )
    ).data;
    expect(byDay.columns).toEqual([
      { column: "datetime", values: [`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`] },
      { column: "eventsCount", values: [3] },
    ]);

    // Filtered (feedback only), by week; a column Imprint does not keep is refused, naming it.
    const feedbackOnly = (
      await org.owner.api.orgs.aggregateSiteEvents(
        org.organizationId,
        site.id,
        aggregation({
          range: "last30Days",
          where: [{ column: "eventType", values: ["page_view"], operator: "notIn" }],
          groupBy: [{ column: "datetime", interval: "week" }],
          select: [{ column: "eventsCount" }, { column: "pageFeedbackRating" }],
        }),
      )
    ).data;
    expect(feedbackOnly.columns).toEqual([
      { column: "eventsCount", values: [1] },
      { column: "pageFeedbackRating", values: [{ good: 1, ok: 0, bad: 0 }] },
    ]);
    const byCountry = await call(
      stack,
      "POST",
      `/v1/orgs/${org.organizationId}/sites/${site.id}/insights/events/aggregate`,
      owner({ range: "last7Days", groupBy: [{ column: "visitorGeoCountry" }] }),
    );
    expect(byCountry.status).toBe(400);
    expect(JSON.stringify(byCountry.body)).toContain("groupBy");

    // Readers of the organization may not read insights; another organization's site is not found.
    const readerMember = await createMember(stack, org, { role: "read" });
    expect(
      (await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.id}/insights/events/aggregate`, { token: readerMember.token, json: query }))
        .status,
    ).toBe(403);
    const other = await createOrganization(stack);
    expect(
      (await call(stack, "POST", `/v1/orgs/${org.organizationId}/sites/${site.id}/insights/events/aggregate`, { token: other.owner.token, json: query }))
        .status,
    ).toBe(404);
    expect(
      (await call(stack, "POST", `/v1/orgs/${other.organizationId}/sites/${site.id}/insights/events/aggregate`, { token: other.owner.token, json: query }))
        .status,
    ).toBe(404);
  });
});
