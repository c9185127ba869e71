import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/** The content service's fixture site (docs/ with five pages and two images). */
const SITE_ROOT = fileURLToPath(new URL("../../services/content/test/fixtures/site/public", import.meta.url));
const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".png": "image/png" };
// GitBook's current OpenAPI replaced these operations with import runs; they are 0.143.2's importContent*.
const NOT_IN_OPENAPI = { notInOpenApi: "importContent / importContentInPageById exist in GitBook's API 0.143.2 only" };

/** Static loopback server for the fixture site (the stack's content service allows private fetches). */
async function serveFixtureSite(): Promise<{ origin: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    requests.push(path);
    const file = join(SITE_ROOT, normalize(path).replace(/^(\.\.[/\\])+/, ""), path.endsWith("/") ? "index.html" : "");
    readFile(file).then(
      (body) => {
        response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
        response.end(body);
      },
      () => {
        response.writeHead(404);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

interface RestPage {
  id: string;
  title: string;
  path: string;
  pages: RestPage[];
}

interface DocumentNode {
  type?: string;
  data?: { ref?: Record<string, unknown> };
  nodes?: DocumentNode[];
}

function refsOf(node: DocumentNode): Record<string, unknown>[] {
  return [...(node.data?.ref ? [node.data.ref] : []), ...(node.nodes ?? []).flatMap(refsOf)];
}

let stack: TestStack;
let site: Awaited<ReturnType<typeof serveFixtureSite>>;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack();
  site = await serveFixtureSite();
});
afterAll(async () => {
  site?.server.closeAllConnections();
  await new Promise((resolve) => site?.server.close(resolve));
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
});

const owner = () => org.owner.token;
const importInto = (spaceId: string, json: unknown, token = owner()) =>
  call(stack, "POST", `/v1/spaces/${spaceId}/content/import`, { token, json, ...NOT_IN_OPENAPI });

describe("POST /v1/spaces/{spaceId}/content/import", () => {
  it("imports the site into a new revision (201 + Location) readable through the content API", async () => {
    const space = await createSpace(stack, org);
    const response = await importInto(space.id, { url: `${site.origin}/docs/`, source: "website" });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({ revision: expect.any(String), importedResources: 7, totalResources: 7 });
    expect(response.headers.get("location")).toBe(`${stack.baseUrl}/v1/spaces/${space.id}/revisions/${response.body.revision}`);
    // The Location is the revision (getRevisionById).
    const located = await call(stack, "GET", new URL(response.headers.get("location")!).pathname, { token: owner() });
    expect(located.body).toMatchObject({ object: "revision", id: response.body.revision });

    // The space's current revision is the import's.
    const current = await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() });
    expect(current.status).toBe(200);
    expect(current.body.id).toBe(response.body.revision);

    // Tree and paths from the site's URL paths.
    const pages = await call(stack, "GET", `/v1/spaces/${space.id}/content/pages`, { token: owner() });
    expect(pages.status).toBe(200);
    const shape = (list: RestPage[]): unknown[] => list.map((page) => ({ title: page.title, path: page.path, pages: shape(page.pages ?? []) }));
    expect(shape(pages.body.pages as RestPage[])).toEqual([
      { title: "Welcome to Acme", path: "welcome-to-acme", pages: [] },
      {
        title: "Guide",
        path: "guide",
        pages: [
          { title: "Installing Acme", path: "guide/install", pages: [] },
          { title: "Configuring Acme", path: "guide/configure", pages: [] },
        ],
      },
      { title: "API reference", path: "reference", pages: [] },
    ]);
    const all = (pages.body.pages as RestPage[]).flatMap(function walk(page): RestPage[] {
      return [page, ...(page.pages ?? []).flatMap(walk)];
    });
    const idOf = Object.fromEntries(all.map((page) => [page.path, page.id]));

    // Markdown content by path.
    const install = await call(stack, "GET", `/v1/spaces/${space.id}/content/path/${encodeURIComponent("guide/install")}?format=markdown`, { token: owner() });
    expect(install.status).toBe(200);
    expect(install.body.markdown).toContain("| Platform | Version |");
    expect(install.body.markdown).toContain("```sh\nnpm install acme\nacme init\n```");

    // Images became files with their dimensions.
    const files = await call(stack, "GET", `/v1/spaces/${space.id}/content/files`, { token: owner() });
    expect(files.status).toBe(200);
    const byName = Object.fromEntries((files.body.items as { id: string; name: string; downloadURL: string }[]).map((file) => [file.name, file]));
    expect(byName["logo.png"]).toMatchObject({ contentType: "image/png", dimensions: { width: 40, height: 20 } });
    expect(byName["diagram.png"]).toMatchObject({ contentType: "image/png", dimensions: { width: 64, height: 32 } });
    const download = await fetch(byName["logo.png"]!.downloadURL);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect((await download.arrayBuffer()).byteLength).toBe(93);

    // Links between imported pages are page references; images are file references.
    const home = await call(stack, "GET", `/v1/spaces/${space.id}/content/page/${idOf["welcome-to-acme"]}?format=document`, { token: owner() });
    expect(home.status).toBe(200);
    const refs = refsOf(home.body.document as DocumentNode);
    expect(refs).toContainEqual({ kind: "page", page: idOf["guide/install"] });
    expect(refs).toContainEqual({ kind: "anchor", anchor: "options", page: idOf["guide/configure"] });
    expect(refs).toContainEqual({ kind: "file", file: byName["logo.png"]!.id });
    expect(refs).toContainEqual({ kind: "url", url: "https://example.com/acme" });
  });

  it("answers 400 naming the field for a source other than website, a missing url, an unreachable site", async () => {
    const space = await createSpace(stack, org);
    const git = await importInto(space.id, { url: `${site.origin}/docs/`, source: "git" });
    expect(git.status).toBe(400);
    expect(git.body.error.message).toBe('source: must be "website" (the only supported import source), got "git"');

    const missing = await importInto(space.id, { source: "website" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("url: is required");

    const notFound = await importInto(space.id, { url: `${site.origin}/nothing-here/`, source: "website" });
    expect(notFound.status).toBe(400);
    expect(notFound.body.error.message).toBe("url: could not be fetched (HTTP 404)");

    const unreachable = await importInto(space.id, { url: "http://127.0.0.1:1/docs/", source: "website" });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.error.message).toBe("url: could not be fetched (connection refused)");
  });

  it("answers 404 for another organization's space and 403 for a reader, fetching nothing", async () => {
    const space = await createSpace(stack, org);
    const other = await createOrganization(stack);
    const reader = await createMember(stack, org, { role: "read" });
    const before = site.requests.length;

    const foreign = await importInto(space.id, { url: `${site.origin}/docs/`, source: "website" }, other.owner.token);
    expect(foreign.status).toBe(404);
    const denied = await importInto(space.id, { url: `${site.origin}/docs/`, source: "website" }, reader.token);
    expect(denied.status).toBe(403);
    const anonymous = await call(stack, "POST", `/v1/spaces/${space.id}/content/import`, {
      json: { url: `${site.origin}/docs/`, source: "website" },
      ...NOT_IN_OPENAPI,
    });
    expect(anonymous.status).toBe(401);
    expect(site.requests.length).toBe(before);
  });
});

describe("POST /v1/spaces/{spaceId}/content/page/{pageId}/import", () => {
  it("imports under the given page", async () => {
    const space = await createSpace(stack, org);
    const first = await importInto(space.id, { url: `${site.origin}/docs/api/reference.html`, source: "website" });
    expect(first.status).toBe(201);
    const pages = await call(stack, "GET", `/v1/spaces/${space.id}/content/pages`, { token: owner() });
    const reference = (pages.body.pages as RestPage[])[0]!;

    const response = await call(stack, "POST", `/v1/spaces/${space.id}/content/page/${reference.id}/import`, {
      token: owner(),
      json: { url: `${site.origin}/docs/guide/`, source: "website" },
      ...NOT_IN_OPENAPI,
    });
    expect(response.status).toBe(201);
    // Three pages, and the diagram and logo they show.
    expect(response.body).toMatchObject({ importedResources: 5, totalResources: 5 });

    const after = await call(stack, "GET", `/v1/spaces/${space.id}/content/pages`, { token: owner() });
    const tree = after.body.pages as RestPage[];
    expect(tree.map((page) => page.path)).toEqual(["reference"]);
    expect(tree[0]!.pages.map((page) => page.path)).toEqual(["reference/guide", "reference/install", "reference/configure"]);
  });

  it("answers 404 for a page that does not exist", async () => {
    const space = await createSpace(stack, org);
    const response = await call(stack, "POST", `/v1/spaces/${space.id}/content/page/NoSuchPage/import`, {
      token: owner(),
      json: { url: `${site.origin}/docs/`, source: "website" },
      ...NOT_IN_OPENAPI,
    });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe("Page not found");
  });
});

describe("POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import", () => {
  const IN_CHANGE_REQUEST = { notInOpenApi: "importContentInChangeRequest / ...PageById exist in GitBook's API 0.143.2 only" };

  it("imports into the change request's branch (whole site, then under a page), leaving the space's content as it was", async () => {
    const space = await createSpace(stack, org);
    const spaceRevision = (await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() })).body.id as string;
    const changeRequest = await call(stack, "POST", `/v1/spaces/${space.id}/change-requests`, { token: owner(), json: { subject: "Import the site" } });
    expect(changeRequest.status).toBe(201);
    const prefix = `/v1/spaces/${space.id}/change-requests/${changeRequest.body.number as number}/content`;

    const response = await call(stack, "POST", `${prefix}/import`, {
      token: owner(),
      json: { url: `${site.origin}/docs/api/reference.html`, source: "website" },
      ...IN_CHANGE_REQUEST,
    });
    expect(response.status).toBe(201);
    expect(response.body.importedResources).toBeGreaterThan(0);
    const afterImport = await call(stack, "GET", `/v1/spaces/${space.id}/change-requests/${changeRequest.body.id as string}`, { token: owner() });
    expect(afterImport.body.revision).toBe(response.body.revision);

    const reference = ((await call(stack, "GET", `${prefix}/pages`, { token: owner() })).body.pages as RestPage[])[0]!;
    const underPage = await call(stack, "POST", `${prefix}/page/${reference.id}/import`, {
      token: owner(),
      json: { url: `${site.origin}/docs/guide/`, source: "website" },
      ...IN_CHANGE_REQUEST,
    });
    expect(underPage.status).toBe(201);
    const tree = (await call(stack, "GET", `${prefix}/pages`, { token: owner() })).body.pages as RestPage[];
    expect(tree.map((page) => page.path)).toEqual(["reference"]);
    expect(tree[0]!.pages.map((page) => page.path)).toEqual(["reference/guide", "reference/install", "reference/configure"]);

    // The space itself still has its empty first revision.
    const spaceContent = await call(stack, "GET", `/v1/spaces/${space.id}/content`, { token: owner() });
    expect(spaceContent.body).toMatchObject({ id: spaceRevision, pages: [] });

    // Another organization cannot import into it; a reader is refused.
    const other = await createOrganization(stack);
    const reader = await createMember(stack, org, { role: "read" });
    const before = site.requests.length;
    const json = { url: `${site.origin}/docs/`, source: "website" };
    expect((await call(stack, "POST", `${prefix}/import`, { token: other.owner.token, json, ...IN_CHANGE_REQUEST })).status).toBe(404);
    expect((await call(stack, "POST", `${prefix}/import`, { token: reader.token, json, ...IN_CHANGE_REQUEST })).status).toBe(403);
    expect(site.requests.length).toBe(before);
  });
});
