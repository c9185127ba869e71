import { randomUUID } from "node:crypto";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { ImportServiceService, type ImportContentRequest } from "@imprint/proto/content/v1/import";
import { DocumentFormat, RevisionServiceService, type Page } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  patient,
  testClient,
  createMember,
  createOrganization,
  createOutsider,
  createSpace,
  type TestOrganization,
  type TestUser,
} from "@imprint/runtime/testing";
import { serveSite, type TestSite } from "./fixtures/site/server.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

type ImportClient = PromiseClient<typeof ImportServiceService>;
type RevisionClient = PromiseClient<typeof RevisionServiceService>;

const READ_OPTIONS = { metadata: false, computed: false };
const headRef = (spaceId: string) => ({ spaceId, changeRequestId: "", revisionId: "" });

/** Each page of a tree with its path, depth first. */
function flatten(pages: readonly Page[]): Page[] {
  return pages.flatMap((page) => [page, ...flatten(page.pages)]);
}

interface DocumentNode {
  type?: string;
  data?: { ref?: { kind: string; page?: string; file?: string; anchor?: string; url?: string } };
  nodes?: DocumentNode[];
}

/** Every `data.ref` of a document's links and images, in order. */
function references(node: DocumentNode): { type: string; ref: NonNullable<NonNullable<DocumentNode["data"]>["ref"]> }[] {
  const own = node.data?.ref && node.type ? [{ type: node.type, ref: node.data.ref }] : [];
  return [...own, ...(node.nodes ?? []).flatMap(references)];
}

describe("website import over gRPC (IMPRINT_ALLOW_PRIVATE_FETCH=true)", () => {
  let harness: ContentHarness;
  let imports: ImportClient;
  let revisions: RevisionClient;
  let site: TestSite;
  let organization: TestOrganization;

  beforeAll(async () => {
    harness = await startContentHarness({ contentEnv: { IMPRINT_ALLOW_PRIVATE_FETCH: "true" } });
    imports = testClient(ImportServiceService, harness.contentAddress, { defaultTimeoutMs: 60_000 });
    revisions = testClient(RevisionServiceService, harness.contentAddress);
    site = await serveSite({
      "/slow-start/": () => {
        // Never answers: the import must still end (per-request bound) with a clear error.
      },
    });
    organization = await createOrganization(harness);
  });
  afterAll(async () => {
    imports.close();
    revisions.close();
    await site.close();
    await harness.stop();
  });

  const importSite = (request: Partial<ImportContentRequest> & { spaceId: string }, caller: TestUser = organization.owner) =>
    imports.importContent({
      caller: caller.caller,
      ref: headRef(request.spaceId),
      url: request.url ?? `${site.origin}/docs/`,
      source: request.source ?? "website",
      underPageId: request.underPageId ?? "",
    });

  const headOf = async (spaceId: string) =>
    (await revisions.getRevision({ caller: organization.owner.caller, ref: headRef(spaceId), options: READ_OPTIONS })).revision!;

  const markdownAt = async (spaceId: string, path: string) => {
    const response = await revisions.getPageByPath({
      caller: organization.owner.caller,
      ref: headRef(spaceId),
      options: READ_OPTIONS,
      path,
      pageOptions: { format: DocumentFormat.DOCUMENT_FORMAT_MARKDOWN, evaluated: false },
    });
    return { page: response.page!, markdown: response.page!.markdown };
  };

  it("imports the site as one new revision that becomes the space's current revision", async () => {
    const space = await createSpace(harness, organization);
    const before = await headOf(space.id);

    const result = await importSite({ spaceId: space.id });

    // Five pages and two distinct images (the logo is used twice, downloaded once).
    expect(result).toEqual({ revisionId: expect.any(String), importedResources: 7, totalResources: 7 });
    expect(result.revisionId).not.toBe(before.id);
    const head = await headOf(space.id);
    expect(head.id).toBe(result.revisionId);
    expect(head.parents).toEqual([before.id]);
    expect(head.message).toBe(`Import from ${site.origin}/docs/`);
  });

  it("imports into a change request (by number) through a draft on its branch: the branch's head moves, the space's does not", async () => {
    const space = await createSpace(harness, organization);
    const before = await headOf(space.id);
    const branches = testClient(BranchServiceService, harness.contentAddress);
    try {
      const branch = (await branches.createBranch({ caller: organization.owner.caller, spaceId: space.id, changeRequestId: randomUUID(), number: 1 })).branch!;
      const ref = { spaceId: space.id, changeRequestId: "1", revisionId: "" };
      const result = await imports.importContent({ caller: organization.owner.caller, ref, url: `${site.origin}/docs/`, source: "website", underPageId: "" });
      expect(result.importedResources).toBe(7);
      expect((await headOf(space.id)).id).toBe(before.id);
      const [after] = (await branches.batchGetBranches({ caller: organization.owner.caller, spaceId: space.id, changeRequestIds: [branch.id] })).branches;
      expect(after!.headRevisionId).toBe(result.revisionId);
      const listing = await revisions.listPages({ caller: organization.owner.caller, ref, options: READ_OPTIONS });
      expect(listing.revisionId).toBe(result.revisionId);
      expect(listing.pages.map((page) => page.title)).toContain("Guide");
    } finally {
      branches.close();
    }
  });

  it("builds the page tree from the URL paths, in discovery order, with titles and slugs", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id });

    const listing = await revisions.listPages({ caller: organization.owner.caller, ref: headRef(space.id), options: READ_OPTIONS });
    const shape = (pages: readonly Page[]): unknown[] => pages.map((page) => ({ title: page.title, path: page.path, pages: shape(page.pages) }));
    expect(shape(listing.pages)).toEqual([
      { title: "Welcome to Acme", path: "welcome-to-acme", pages: [] },
      {
        title: "Guide",
        path: "guide",
        pages: [
          { title: "Installing Acme", path: "guide/install", pages: [] },
          { title: "Configuring Acme", path: "guide/configure", pages: [] },
        ],
      },
      // /docs/api/ was never a page, so the reference nests under nothing.
      { title: "API reference", path: "reference", pages: [] },
    ]);
  });

  it("stores the main content as markdown: headings, tables, code, lists, without the site's chrome", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id });

    const install = await markdownAt(space.id, "guide/install");
    expect(install.markdown).toContain("## Requirements\n\n| Platform | Version |\n| -------- | ------- |\n| Linux    | 5.10    |\n| macOS    | 14      |\n");
    expect(install.markdown).toContain("```sh\nnpm install acme\nacme init\n```\n");
    expect(install.markdown).not.toContain("On this page");
    const configure = await markdownAt(space.id, "guide/configure");
    expect(configure.markdown).toContain("- `verbose`: prints more\n- `color`: _colors_ the output\n");
    const home = await markdownAt(space.id, "welcome-to-acme");
    for (const chrome of ["site header", "site footer", "Elsewhere", "analytics"]) expect(home.markdown).not.toContain(chrome);
  });

  it("downloads images as files (with their dimensions) and points the pages at them", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id });

    const files = (await revisions.listFiles({ caller: organization.owner.caller, ref: headRef(space.id), options: READ_OPTIONS, page: undefined })).files;
    const byName = new Map(files.map((file) => [file.name, file]));
    expect([...byName.keys()].sort()).toEqual(["diagram.png", "logo.png"]);
    expect(byName.get("logo.png")).toMatchObject({ contentType: "image/png", width: 40, height: 20, size: "93" });
    expect(byName.get("diagram.png")).toMatchObject({ contentType: "image/png", width: 64, height: 32, size: "134" });

    const logo = byName.get("logo.png")!;
    const diagram = byName.get("diagram.png")!;
    expect((await markdownAt(space.id, "welcome-to-acme")).markdown).toContain(`![Acme logo](/files/${logo.id})`);
    expect((await markdownAt(space.id, "guide/install")).markdown).toContain(`![Architecture diagram](/files/${diagram.id})`);
    // The same image referenced by an absolute path from another page is the same file.
    expect((await markdownAt(space.id, "guide/configure")).markdown).toContain(`![Logo](/files/${logo.id})`);

    // The bytes behind the signed URL are the image's.
    const read = new URL(logo.downloadUrl);
    const content = await revisions.readFileContent({
      fileId: logo.id,
      version: read.searchParams.get("version") ?? "",
      expires: read.searchParams.get("expires") ?? "0",
      signature: read.searchParams.get("signature") ?? "",
    });
    expect(content.contentType).toBe("image/png");
    expect(Buffer.from(content.content).subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  it("rewrites links between imported pages into page references, and leaves other links absolute", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id });
    const listing = await revisions.listPages({ caller: organization.owner.caller, ref: headRef(space.id), options: READ_OPTIONS });
    const id = Object.fromEntries(flatten(listing.pages).map((page) => [page.path, page.id]));

    const home = await markdownAt(space.id, "welcome-to-acme");
    expect(home.markdown).toContain(
      `Start with the [installation guide](/pages/${id["guide/install"]}), then read about [options](/pages/${id["guide/configure"]}#options).`,
    );
    expect(home.markdown).toContain(`[the manual](${site.origin}/docs/files/manual.pdf)`);
    expect(home.markdown).toContain("[example.com](https://example.com/acme)");
    const guide = await markdownAt(space.id, "guide");
    expect(guide.markdown).toContain(`[Install](/pages/${id["guide/install"]})`);
    expect(guide.markdown).toContain(`[Configure](/pages/${id["guide/configure"]})`);
    expect(guide.markdown).toContain(`[error codes](/pages/${id["reference"]}#errors)`);
    // "../" from the install page is the site's start page.
    expect((await markdownAt(space.id, "guide/install")).markdown).toContain(`[home page](/pages/${id["welcome-to-acme"]})`);

    // In the document format they are page, anchor and file references.
    const document = await revisions.getPage({
      caller: organization.owner.caller,
      ref: headRef(space.id),
      options: READ_OPTIONS,
      pageId: id["welcome-to-acme"]!,
      pageOptions: { format: DocumentFormat.DOCUMENT_FORMAT_DOCUMENT, evaluated: false },
    });
    const refs = references(JSON.parse(document.page!.documentJson) as DocumentNode).map(({ ref }) => ref);
    expect(refs).toContainEqual({ kind: "page", page: id["guide/install"] });
    expect(refs).toContainEqual({ kind: "anchor", anchor: "options", page: id["guide/configure"] });
    expect(refs).toContainEqual(expect.objectContaining({ kind: "file" }));
    expect(refs).toContainEqual({ kind: "url", url: "https://example.com/acme" });
  });

  it("imports under a page (page import), next to its existing sub-pages", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id, url: `${site.origin}/docs/api/reference.html` });
    const reference = (await markdownAt(space.id, "reference")).page;

    const result = await importSite({ spaceId: space.id, url: `${site.origin}/docs/guide/`, underPageId: reference.id });

    // Three pages, and the diagram and logo they show.
    expect(result).toMatchObject({ importedResources: 5, totalResources: 5 });
    const listing = await revisions.listPages({ caller: organization.owner.caller, ref: headRef(space.id), options: READ_OPTIONS });
    expect(listing.pages.map((page) => page.path)).toEqual(["reference"]);
    // The guide's start page and the pages beside it (scope /docs/guide/) land under the page.
    expect(listing.pages[0]!.pages.map((page) => page.path)).toEqual(["reference/guide", "reference/install", "reference/configure"]);
  });

  it("gives pages of a second import unique slugs beside the pages already there", async () => {
    const space = await createSpace(harness, organization);
    await importSite({ spaceId: space.id, url: `${site.origin}/docs/api/reference.html` });
    await importSite({ spaceId: space.id, url: `${site.origin}/docs/api/reference.html` });
    const listing = await revisions.listPages({ caller: organization.owner.caller, ref: headRef(space.id), options: READ_OPTIONS });
    expect(listing.pages.map((page) => page.path)).toEqual(["reference", "reference-1"]);
  });

  it("answers 4xx for sources that cannot be fetched, and leaves the space as it was", async () => {
    const space = await createSpace(harness, organization);
    const before = await headOf(space.id);
    const closed = await serveSite();
    const closedOrigin = closed.origin;
    await closed.close();

    await expect(importSite({ spaceId: space.id, url: `${closedOrigin}/docs/` })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: could not be fetched (connection refused)",
    });
    await expect(importSite({ spaceId: space.id, url: `${site.origin}/missing/` })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: could not be fetched (HTTP 404)",
    });
    await expect(importSite({ spaceId: space.id, url: `${site.origin}/docs/images/logo.png` })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: could not be fetched (unsupported content type image/png)",
    });
    await expect(importSite({ spaceId: space.id, url: "ftp://example.com/docs" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: scheme ftp is not allowed (only http and https)",
    });
    await expect(importSite({ spaceId: space.id, url: "not a url" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: not a valid absolute URL",
    });
    await expect(importSite({ spaceId: space.id, url: "" })).rejects.toMatchObject({ code: "invalid_argument", message: "url: is required" });
    await expect(importSite({ spaceId: space.id, url: "http://no-such-host.invalid/docs/" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: "url: could not be fetched (host no-such-host.invalid could not be resolved)",
    });
    expect((await headOf(space.id)).id).toBe(before.id);
  });

  it(
    "bounds the time spent on a source that never answers",
    async () => {
      const space = await createSpace(harness, organization);
      const started = Date.now();
      await expect(importSite({ spaceId: space.id, url: `${site.origin}/slow-start/` })).rejects.toMatchObject({
        code: "invalid_argument",
        message: "url: could not be fetched (no complete answer within 10000 ms)",
      });
      expect(Date.now() - started).toBeLessThan(15_000);
    },
    patient(20_000),
  );

  it("accepts only the website source, naming the field", async () => {
    const space = await createSpace(harness, organization);
    await expect(importSite({ spaceId: space.id, source: "git" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: 'source: must be "website" (the only supported import source), got "git"',
    });
  });

  it("answers not found for another organization's space, an unknown page or an unknown change request, without fetching", async () => {
    const space = await createSpace(harness, organization);
    const outsider = await createOutsider(harness);
    const other = await createOrganization(harness);
    const requestsBefore = site.requests.length;

    await expect(importSite({ spaceId: space.id }, outsider)).rejects.toMatchObject({ code: "not_found", message: "Space not found" });
    await expect(importSite({ spaceId: space.id }, other.owner)).rejects.toMatchObject({ code: "not_found", message: "Space not found" });
    await expect(importSite({ spaceId: space.id, underPageId: "NoSuchPage" })).rejects.toMatchObject({ code: "not_found", message: "Page not found" });
    await expect(
      imports.importContent({
        caller: organization.owner.caller,
        ref: { spaceId: space.id, changeRequestId: "1", revisionId: "" },
        url: `${site.origin}/docs/`,
        source: "website",
        underPageId: "",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(site.requests.length).toBe(requestsBefore);
  });

  it("needs edit rights: a reader is refused before anything is fetched", async () => {
    const space = await createSpace(harness, organization);
    const reader = await createMember(harness, organization.organizationId, { role: "read" });
    const requestsBefore = site.requests.length;
    await expect(importSite({ spaceId: space.id }, reader)).rejects.toMatchObject({ code: "permission_denied" });
    expect(site.requests.length).toBe(requestsBefore);
  });
});

describe("website import without IMPRINT_ALLOW_PRIVATE_FETCH", () => {
  let harness: ContentHarness;
  let imports: ImportClient;
  let site: TestSite;
  let organization: TestOrganization;

  beforeAll(async () => {
    harness = await startContentHarness();
    imports = testClient(ImportServiceService, harness.contentAddress, { defaultTimeoutMs: 30_000 });
    site = await serveSite();
    organization = await createOrganization(harness);
  });
  afterAll(async () => {
    imports.close();
    await site.close();
    await harness.stop();
  });

  it.each([
    [
      "a loopback address",
      (origin: string) => `${origin}/docs/`,
      "url: could not be fetched (127.0.0.1 is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them)",
    ],
    [
      "a name resolving to loopback",
      (origin: string) => `http://localhost:${new URL(origin).port}/docs/`,
      "url: could not be fetched (localhost (127.0.0.1) is a loopback address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them)",
    ],
    [
      "a link-local address",
      () => "http://169.254.169.254/latest/meta-data/",
      "url: could not be fetched (169.254.169.254 is a linkLocal address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them)",
    ],
    [
      "a private address",
      () => "http://10.0.0.1/",
      "url: could not be fetched (10.0.0.1 is a private address; private and local targets are not fetched; set IMPRINT_ALLOW_PRIVATE_FETCH=true on the content service to allow them)",
    ],
  ])("refuses %s without connecting", async (_label, url, message) => {
    const space = await createSpace(harness, organization);
    await expect(
      imports.importContent({ caller: organization.owner.caller, ref: headRef(space.id), url: url(site.origin), source: "website", underPageId: "" }),
    ).rejects.toMatchObject({ code: "invalid_argument", message });
    expect(site.requests).toEqual([]);
  });
});
