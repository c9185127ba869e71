import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SiteRedirectDestination, UpdateSiteRedirectRequest } from "@imprint/proto/publishing/v1/site_redirects";
import type { Site } from "@imprint/proto/publishing/v1/sites";
import {
  createMember,
  createOrganization,
  createPage,
  createRevision,
  createSpace,
  eventually,
  failure,
  pageUpdate,
  readEvents,
  testLogger,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import type { EventEnvelope } from "@imprint/runtime";
import type { PublishingConfig } from "../src/config.js";
import { pageMoveConsumer } from "../src/consumers/content-events.js";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

let harness: PublishingHarness;
let org: TestOrganization;
let other: TestOrganization;
let editor: TestUser;
let site: Site;
let siteSpaceId: string;
let spaceId: string;
let pageId: string;

beforeAll(async () => {
  harness = await startPublishingHarness();
  org = await createOrganization(harness);
  other = await createOrganization(harness);
  editor = await createMember(harness, org.organizationId, { role: "edit" });
  const space = await createSpace(harness, org, { title: "Guides" });
  spaceId = space.id;
  pageId = await createPage(harness, org.owner.caller, { spaceId }, { title: "Install", markdown: "Run it." });
  site = (
    await harness.sites.createSite({
      caller: org.owner.caller,
      organizationId: org.organizationId,
      type: "",
      title: "Docs",
      visibility: "",
      spaceIds: [space.id],
    })
  ).site!;
  const { siteSpaces } = await harness.siteSpaces.listSiteSpaces({
    caller: org.owner.caller,
    organizationId: org.organizationId,
    siteId: site.id,
    page: undefined,
    shareKey: "",
  });
  siteSpaceId = siteSpaces[0]!.id;
});
afterAll(() => harness?.stop());

const destination = (fields: Partial<SiteRedirectDestination>) => SiteRedirectDestination.fromPartial(fields);

const create = (
  source: string,
  fields: { draft?: boolean; permanent?: boolean; captureWildcard?: boolean; to?: Partial<SiteRedirectDestination> } = {},
  user: TestUser = org.owner,
) =>
  harness.siteRedirects
    .createSiteRedirect({
      caller: user.caller,
      organizationId: org.organizationId,
      siteId: site.id,
      source,
      draft: fields.draft ?? false,
      permanent: fields.permanent ?? false,
      captureWildcard: fields.captureWildcard ?? false,
      destination: destination(fields.to ?? { kind: "external", url: "https://example.com/new" }),
    })
    .then((answer) => answer.redirect!);

const bySource = (source: string, user: TestUser = org.owner) =>
  harness.siteRedirects.getSiteRedirectBySource({ caller: user.caller, organizationId: org.organizationId, siteId: site.id, source, shareKey: "" });

const list = (fields: { search?: string; draft?: boolean; orderBy?: string } = {}, user: TestUser = org.owner) =>
  harness.siteRedirects
    .listSiteRedirects({
      caller: user.caller,
      organizationId: org.organizationId,
      siteId: site.id,
      page: undefined,
      search: fields.search ?? "",
      draft: fields.draft ?? false,
      orderBy: fields.orderBy ?? "",
    })
    .then((answer) => answer.redirects);

describe("site redirects", () => {
  it("creates a redirect to a page, lists it to members, and finds where a source leads (the page's path in its site-space)", async () => {
    const redirect = await create("/old-install", { permanent: true, to: { kind: "site-page", siteSpaceId, pageId } });
    expect(redirect).toMatchObject({
      siteId: site.id,
      source: "/old-install",
      draft: false,
      permanent: true,
      automatic: false,
      destination: { kind: "site-page", siteSpaceId, pageId },
    });
    expect(redirect.updatedAt).toBeUndefined();
    expect((await list({}, editor)).map((item) => item.id)).toContain(redirect.id);
    const resolved = await bySource("/old-install", editor);
    expect(resolved.redirect!.id).toBe(redirect.id);
    expect(resolved.targetUrl).toBe("");
    expect(resolved.targetPath).toBe("install");
    const events = await readEvents("publishing", { payload: { siteRedirectId: redirect.id } });
    expect(events.map((event) => [event.type, event.payload.source])).toEqual([["site_redirect.created", "/old-install"]]);
  });

  it("resolves a page named by space and path to that page of the site-space publishing the space", async () => {
    const redirect = await create("/by-path", { to: { kind: "path", spaceId, path: "install" } });
    expect(redirect.destination).toMatchObject({ kind: "site-page", siteSpaceId, pageId });
    expect(await failure(create("/by-bad-path", { to: { kind: "path", spaceId, path: "nowhere" } }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("destination.path"),
    });
  });

  it("follows the longest wildcard source covering a path, appending what it matched when asked", async () => {
    await create("/blog/*", { captureWildcard: true, to: { kind: "external", url: "https://blog.example.com/posts" } });
    await create("/blog/2020/*", { to: { kind: "external", url: "https://archive.example.com/" } });
    expect((await bySource("/blog/hello/world")).targetUrl).toBe("https://blog.example.com/posts/hello/world");
    expect((await bySource("/blog/2020/anything")).targetUrl).toBe("https://archive.example.com/");
    expect(await failure(bySource("/elsewhere"))).toMatchObject({ code: "not_found" });
  });

  it("refuses a bad source, a taken one, a foreign destination, and non-admins; another organization's site is not found", async () => {
    expect(await failure(create("no-slash"))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("source:") });
    expect(await failure(create(`/${"a".repeat(600)}`))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("source:") });
    await create("/taken");
    expect(await failure(create("/taken"))).toMatchObject({ code: "conflict" });
    expect(await failure(create("/foreign", { to: { kind: "site-space", siteSpaceId: crypto.randomUUID() } }))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("destination.siteSpaceId"),
    });
    expect(await failure(create("/no-url", { to: { kind: "external", url: "ftp://x" } }))).toMatchObject({
      message: expect.stringContaining("destination.url"),
    });
    expect(await failure(create("/by-editor", {}, editor))).toMatchObject({ code: "permission_denied" });
    expect(
      await failure(
        harness.siteRedirects.listSiteRedirects({
          caller: other.owner.caller,
          organizationId: other.organizationId,
          siteId: site.id,
          page: undefined,
          search: "",
          draft: false,
          orderBy: "",
        }),
      ),
    ).toMatchObject({ code: "not_found" });
  });

  it("updates what the mask names only, and a draft made live follows", async () => {
    const draft = await create("/draft-one", { draft: true });
    expect((await list({ draft: true })).map((item) => item.id)).toContain(draft.id);
    expect((await list()).map((item) => item.id)).not.toContain(draft.id);
    const updated = (
      await harness.siteRedirects.updateSiteRedirect(
        UpdateSiteRedirectRequest.fromPartial({
          caller: org.owner.caller,
          organizationId: org.organizationId,
          siteId: site.id,
          siteRedirectId: draft.id,
          updateMask: ["draft", "permanent"],
          draft: false,
          permanent: true,
          source: "/ignored",
        }),
      )
    ).redirect!;
    expect(updated).toMatchObject({ draft: false, permanent: true, source: "/draft-one" });
    expect(updated.updatedAt).toBeInstanceOf(Date);
    expect((await bySource("/draft-one")).redirect!.id).toBe(draft.id);
    expect(
      await failure(
        harness.siteRedirects.updateSiteRedirect(
          UpdateSiteRedirectRequest.fromPartial({
            caller: org.owner.caller,
            organizationId: org.organizationId,
            siteId: site.id,
            siteRedirectId: draft.id,
            updateMask: ["title"],
          }),
        ),
      ),
    ).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("update_mask") });
  });

  it("deletes a redirect, answering whether it existed", async () => {
    const redirect = await create("/to-delete");
    const remove = () =>
      harness.siteRedirects.deleteSiteRedirect({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id, siteRedirectId: redirect.id });
    expect(await remove()).toEqual({ existed: true });
    expect(await remove()).toEqual({ existed: false });
  });

  it("bulk upserts: creates, updates, deletes and publishes by source, one result each, a refused item not stopping the others", async () => {
    const upsert = (redirects: Parameters<PublishingHarness["siteRedirects"]["bulkUpsertSiteRedirects"]>[0]["redirects"]) =>
      harness.siteRedirects
        .bulkUpsertSiteRedirects({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id, redirects })
        .then((r) => r.results);
    const to = destination({ kind: "external", url: "https://example.com/bulk" });
    const first = await upsert([
      { source: "/bulk-a", intent: "", captureWildcard: false, permanent: undefined, destination: to },
      { source: "/bulk-b", intent: "draft", captureWildcard: false, permanent: true, destination: to },
      { source: "bad", intent: "", captureWildcard: false, permanent: undefined, destination: to },
    ]);
    expect(first.map((result) => result.status)).toEqual(["created", "created", "error"]);
    expect(first[2]!.error).toContain("redirects[2].source");
    const second = await upsert([
      { source: "/bulk-a", intent: "live", captureWildcard: false, permanent: true, destination: to },
      { source: "/bulk-b", intent: "publish", captureWildcard: false, permanent: undefined, destination: undefined },
      { source: "/bulk-a", intent: "live", captureWildcard: false, permanent: undefined, destination: undefined },
    ]);
    expect(second.map((result) => result.status)).toEqual(["updated", "published", "deleted"]);
    expect((await bySource("/bulk-b")).redirect).toMatchObject({ draft: false, permanent: true });
    expect(await failure(bySource("/bulk-a"))).toMatchObject({ code: "not_found" });
    expect(await failure(upsert([]))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("redirects") });
    const tooMany = Array.from({ length: 501 }, (_, index) => ({
      source: `/many-${index}`,
      intent: "",
      captureWildcard: false,
      permanent: undefined,
      destination: to,
    }));
    expect(await failure(upsert(tooMany))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("at most 500") });
  });

  it("gives the reader a published site's live redirects only", async () => {
    expect(await failure(harness.reader.listReaderSiteRedirects({ siteId: site.id }))).toMatchObject({ code: "not_found" });
    await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: site.id });
    const { redirects } = await harness.reader.listReaderSiteRedirects({ siteId: site.id });
    const sources = redirects.map((redirect) => redirect.source);
    expect(sources).toContain("/old-install");
    expect(sources).not.toContain("/bulk-a");
    expect(redirects.find((redirect) => redirect.source === "/old-install")).toMatchObject({ permanent: true, kind: "site-page", siteSpaceId, pageId });
  });
});

describe("automatic redirects", () => {
  const logger = testLogger("publishing-page-moves");
  const handler = () =>
    pageMoveConsumer({ clock: () => new Date(), published: harness.published }, { REVISION_EVENTS_CONSUMER: "test-page-moves" } as PublishingConfig).handler;
  const replay = (events: EventEnvelope[]) =>
    harness.publishing.orm.em.fork().transactional(async (tx) => {
      for (const event of events) await handler()(event, { em: tx, attempt: 1, logger });
    });
  const automatic = async (siteId: string) =>
    (
      await harness.siteRedirects.listSiteRedirects({
        caller: org.owner.caller,
        organizationId: org.organizationId,
        siteId,
        page: undefined,
        search: "",
        draft: false,
        orderBy: "source",
      })
    ).redirects
      .filter((redirect) => redirect.automatic)
      .map((redirect) => `${redirect.source} -> ${redirect.destination!.pageId}`);
  const rename = (spaceId: string, pageId: string, slug: string) =>
    createRevision(harness, org.owner.caller, { spaceId }, (draftId) =>
      harness.editing.updatePage({ caller: org.owner.caller, draftId, page: pageUpdate({ pageId, slug }) }),
    );

  it("records a redirect from a moved page's old path, once, and a late older move never takes a source back", async () => {
    const space = await createSpace(harness, org, { title: "Manual" });
    await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Welcome", markdown: "Hi." });
    const setup = await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Setup", markdown: "Run it." });
    const created = (
      await harness.sites.createSite({
        caller: org.owner.caller,
        organizationId: org.organizationId,
        type: "",
        title: "Manual",
        visibility: "",
        spaceIds: [space.id],
      })
    ).site!;
    await harness.sites.publishSite({ caller: org.owner.caller, organizationId: org.organizationId, siteId: created.id });
    // Content learns the space is published from publishing's announcement.
    await eventually(() => harness.published.getPublishedSpace({ spaceId: space.id, knownRevisionId: "" }).catch(() => null), 10_000);

    await rename(space.id, setup, "installation");
    await eventually(async () => (await automatic(created.id)).length === 1, 10_000);
    expect(await automatic(created.id)).toEqual([`/setup -> ${setup}`]);
    await rename(space.id, setup, "install");
    await eventually(async () => (await automatic(created.id)).length === 2, 10_000);

    // A new page takes the first old path, then moves away too: that source now leads to it.
    const newcomer = await createPage(harness, org.owner.caller, { spaceId: space.id }, { title: "Setup", markdown: "The new setup." });
    await rename(space.id, newcomer, "setup-v2");
    const settled = [`/installation -> ${setup}`, `/setup -> ${newcomer}`];
    await eventually(async () => JSON.stringify(await automatic(created.id)) === JSON.stringify(settled), 10_000);

    // Every revision event again, twice, newest first: nothing is added, nothing goes back.
    const events = (await readEvents("content", { payload: { spaceId: space.id } })).filter((event) => event.type === "revision.created");
    await replay([...events].reverse());
    await replay(events);
    expect(await automatic(created.id)).toEqual(settled);

    // A source a person redirected stays theirs.
    await harness.siteRedirects.updateSiteRedirect(
      UpdateSiteRedirectRequest.fromPartial({
        caller: org.owner.caller,
        organizationId: org.organizationId,
        siteId: created.id,
        siteRedirectId: (
          await harness.siteRedirects.getSiteRedirectBySource({
            caller: org.owner.caller,
            organizationId: org.organizationId,
            siteId: created.id,
            source: "/setup",
            shareKey: "",
          })
        ).redirect!.id,
        updateMask: ["destination"],
        destination: { kind: "external", url: "https://example.com/setup" },
      }),
    );
    await replay(events);
    expect(await automatic(created.id)).toEqual([`/installation -> ${setup}`]);
  });
});
