import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType } from "@imprint/proto/content/v1/revisions";
import { commitDraftWork, startEditingStack, stopEditingStack, type DraftCaller, type EditingClient } from "./support/editing.js";
import { pageUpdate, pngBytes } from "@imprint/runtime/testing";
import { createMember, createOrganization, createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * The content reads under /v1/spaces/{spaceId}/content and the signed file downloads, end to end:
 * content is written through the content service's internal editing API, read through the
 * gateway with GitBook's client, and every response is checked against GitBook's OpenAPI.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
});
afterAll(() => stopEditingStack(stack, editing));
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
});

const PNG = pngBytes(120, 80);

/**
 * The page-by-path URL. Slashes of a nested path are sent encoded: the gateway reads the path
 * either way, but the contract checker matches `{pagePath}` as a single URL segment.
 */
const byPath = (path: string, query = "") => `/v1/spaces/${spaceId}/content/path/${encodeURIComponent(path)}${query}`;

/** Writes the test content through the editing API as the owner and makes it the current revision. */
const seed = (work: (draftId: string, caller: DraftCaller) => Promise<unknown>): Promise<string> =>
  commitDraftWork(editing, { userId: org.owner.userId, spaceId }, work);

async function seedGuide(): Promise<{ revisionId: string; fileId: string }> {
  let fileId = "";
  const revisionId = await seed(async (draftId, caller) => {
    const page = (fields: Partial<CreatePageInput>) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) });
    fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "chart.png", contentType: "image/png", content: PNG })).file!.id;
    await editing.setVariables({ caller, draftId, variables: { product: "Imprint" } });
    await page({
      pageId: "guide",
      title: "Guide",
      emoji: "📘",
      description: "Start here",
      markdown: `# Guide\n\nWelcome to **{{ space.vars.product }}**.\n\n![Chart](/files/${fileId})`,
    });
    await page({ pageId: "install", parentPageId: "guide", title: "Install", markdown: "```sh\nnpm i imprint\n```" });
    await page({ pageId: "ref", title: "Reference", type: PageType.PAGE_TYPE_GROUP });
    await page({ pageId: "api", parentPageId: "ref", title: "API", markdown: "| a | b |\n|---|---|\n| 1 | 2 |" });
    await page({ pageId: "status", title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" });
    await editing.setReusableContent({ caller, draftId, reusableContentId: "", title: "Footer", markdown: "Bye", delete: false });
  });
  return { revisionId, fileId };
}

describe("GET /v1/spaces/{spaceId}/content", () => {
  it("answers the current revision shaped as GitBook's Revision", async () => {
    const { revisionId, fileId } = await seedGuide();
    const { data } = await org.owner.api.spaces.getCurrentRevision(spaceId);
    expect(data).toMatchObject({ object: "revision", id: revisionId, type: "edits", variables: { product: "Imprint" }, tags: [] });
    expect(data.pages.map((page) => [page.id, page.type])).toEqual([
      ["guide", "document"],
      ["ref", "group"],
      ["status", "link"],
    ]);
    expect(data.files).toEqual([
      {
        id: fileId,
        name: "chart.png",
        contentType: "image/png",
        size: 33,
        dimensions: { width: 120, height: 80 },
        downloadURL: expect.stringMatching(/\/v1\/files\//) as unknown,
      },
    ]);
    expect(data.reusableContents.map((item) => item.title)).toEqual(["Footer"]);
    expect(data.urls.app).toContain(spaceId);
    // Both flags are accepted, in both spellings of false.
    const plain = await call(stack, "GET", `/v1/spaces/${spaceId}/content?metadata=false&computed=false`, { token: org.owner.token });
    expect(plain.status).toBe(200);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content?metadata=nope`, { token: org.owner.token })).body.error.message).toMatch(/^metadata: /);
  });

  it("answers 404 for another organization's space and for unknown spaces, 401 without a token", async () => {
    await seedGuide();
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content`, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/nope/content`, { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content`)).status).toBe(401);
  });
});

describe("GET /v1/spaces/{spaceId}/content/pages", () => {
  it("lists the page tree with paths, layouts and each page's markdown", async () => {
    await seedGuide();
    const reader = await createMember(stack, org, { role: "read" });
    const { data } = await reader.api.spaces.listPages(spaceId);
    const [guide, group, link] = data.pages as unknown as Record<string, unknown>[];
    expect(guide).toMatchObject({ id: "guide", kind: "sheet", path: "guide", slug: "guide", emoji: "📘", description: "Start here", hidden: false, tags: [] });
    expect((guide!.pages as Record<string, unknown>[]).map((page) => [page.path, page.markdown])).toEqual([["guide/install", "```sh\nnpm i imprint\n```"]]);
    expect(guide!.markdown).toContain("{{ space.vars.product }}");
    expect(guide!.layout).toMatchObject({ width: "default", cover: true, coverSize: "hero", tableOfContents: true });
    expect(group).toMatchObject({ id: "ref", kind: "group", type: "group", path: "reference" });
    expect(link).toMatchObject({ id: "status", type: "link", target: { kind: "url", url: "https://status.example.com" } });
  });

  it("answers the tree of the current revision every time, and 404 to others, however often it is read", async () => {
    await seedGuide();
    const first = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token });
    const again = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token });
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    await seed((draftId, caller) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial({ title: "Changelog" }) }));
    const after = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token });
    expect(after.body.pages.map((page: { title: string }) => page.title)).toEqual(["Guide", "Reference", "Status", "Changelog"]);
    const without = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages?metadata=false`, { token: org.owner.token });
    expect(without.body.pages).toHaveLength(4);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: other.owner.token })).status).toBe(404);
  });

  it("sends a tree larger than one chunk of the kept answer whole, with its length, first read and kept", async () => {
    // 40 pages of 4,000 characters each: about 170 KB of JSON, three chunks of the gateway's kept answer.
    const markdownOf = (index: number) => `Page ${index} ${"lorem ipsum ".repeat(333)}`.trim();
    await seed(async (draftId, caller) => {
      for (let index = 0; index < 40; index++) {
        await editing.createPage({
          caller,
          draftId,
          page: CreatePageInput.fromPartial({ pageId: `p${index}`, title: `Page ${index}`, markdown: markdownOf(index) }),
        });
      }
    });
    let length = "";
    for (const read of ["first", "kept"]) {
      const answer = await call(stack, "GET", `/v1/spaces/${spaceId}/content/pages`, { token: org.owner.token });
      expect(answer.status, read).toBe(200);
      length = answer.headers.get("content-length") ?? "";
      expect(Number(length), read).toBe(Buffer.byteLength(JSON.stringify(answer.body)));
      expect(answer.headers.get("content-type"), read).toMatch(/^application\/json/);
      expect(
        answer.body.pages.map((page: { markdown: string }) => page.markdown),
        read,
      ).toEqual(Array.from({ length: 40 }, (_, index) => markdownOf(index)));
    }
    // HEAD: the same status and length, and no body.
    const head = await fetch(`${stack.baseUrl}/v1/spaces/${spaceId}/content/pages`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${org.owner.token}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(length);
    expect(await head.text()).toBe("");
  });
});

describe("GET /v1/spaces/{spaceId}/content/page/{pageId} and /path/{pagePath}", () => {
  it("answers a page as a document (default) or as markdown, evaluated on request", async () => {
    const { fileId } = await seedGuide();
    const asDocument = await org.owner.api.spaces.getPageById(spaceId, "guide");
    const document = (asDocument.data as unknown as { document: { nodes: { type: string }[] } }).document;
    expect(document.nodes.map((node) => node.type)).toEqual(["heading-1", "paragraph", "images"]);
    expect(JSON.stringify(document)).toContain(`"file":"${fileId}"`);

    const markdown = await org.owner.api.spaces.getPageById(spaceId, "guide", { format: "markdown" });
    expect((markdown.data as unknown as { markdown: string }).markdown).toContain("Welcome to **{{ space.vars.product }}**");
    const evaluated = await org.owner.api.spaces.getPageById(spaceId, "guide", { format: "markdown", evaluated: true });
    expect((evaluated.data as unknown as { markdown: string }).markdown).toContain("Welcome to **Imprint**");
    const evaluatedDocument = await call(stack, "GET", `/v1/spaces/${spaceId}/content/page/guide?evaluated=deterministic-only`, { token: org.owner.token });
    expect(JSON.stringify(evaluatedDocument.body.document)).toContain('"text":"Imprint"');
  });

  it("answers a page by its path, nested paths included, and 404 for unknown paths and links", async () => {
    await seedGuide();
    const { data } = await org.owner.api.spaces.getPageByPath(spaceId, "guide", { format: "markdown" });
    expect(data).toMatchObject({ id: "guide", path: "guide", pages: [expect.objectContaining({ id: "install", path: "guide/install" }) as unknown] });
    const nested = await call(stack, "GET", byPath("guide/install", "?format=markdown"), { token: org.owner.token });
    expect(nested.body).toMatchObject({ id: "install", path: "guide/install", markdown: "```sh\nnpm i imprint\n```" });
    // GitBook's client sends the slashes as they are; the gateway reads that form too.
    const raw = await call(stack, "GET", `/v1/spaces/${spaceId}/content/path/guide/install`, {
      token: org.owner.token,
      notInOpenApi: "the contract checker matches {pagePath} as one URL segment; the encoded form above is checked",
    });
    expect(raw.body).toMatchObject({ id: "install", path: "guide/install" });
    const group = await call(stack, "GET", byPath("reference"), { token: org.owner.token });
    expect(group.body).toMatchObject({ id: "ref", type: "group", pages: [expect.objectContaining({ id: "api" }) as unknown] });
    const table = await call(stack, "GET", byPath("reference/api"), { token: org.owner.token });
    expect(table.body.document.nodes[0].type).toBe("table");
    expect((await call(stack, "GET", byPath("guide/missing"), { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", byPath("status"), { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/page/missing`, { token: org.owner.token })).status).toBe(404);
    const badFormat = await call(stack, "GET", `/v1/spaces/${spaceId}/content/page/guide?format=html`, { token: org.owner.token });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.message).toMatch(/^format: /);
  });

  it("follows new commits, and another organization gets 404", async () => {
    await seedGuide();
    await seed((draftId, caller) => editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "install", markdown: "Use the installer." }) }));
    const { body } = await call(stack, "GET", byPath("guide/install", "?format=markdown"), { token: org.owner.token });
    expect(body.markdown).toBe("Use the installer.");
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", byPath("guide/install"), { token: other.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/page/install`, { token: other.owner.token })).status).toBe(404);
  });
});

describe("page answers kept by the gateway per revision", () => {
  it("answers an edit on the next read, by path, by id and in the parent's sub-pages; 404 to a guest and to another organization", async () => {
    const { revisionId } = await seedGuide();
    const guest = await createMember(stack, org, { role: "guest" });
    const other = await createOrganization(stack);
    const read = async (url: string, token = org.owner.token) => {
      const answer = await call(stack, "GET", url, { token });
      return { status: answer.status, body: answer.body as Record<string, unknown> & { markdown?: string; pages?: { markdown?: string }[] } };
    };
    const install = byPath("guide/install", "?format=markdown");
    const installById = `/v1/spaces/${spaceId}/content/page/install?format=markdown`;
    const guide = byPath("guide", "?format=markdown");
    // Read twice (the second from the kept answer), then as callers who may not see the space.
    for (let round = 0; round < 2; round++) {
      expect((await read(install)).body.markdown).toBe("```sh\nnpm i imprint\n```");
      expect((await read(installById)).body.markdown).toBe("```sh\nnpm i imprint\n```");
      expect((await read(guide)).body.pages?.[0]?.markdown).toBe("```sh\nnpm i imprint\n```");
    }
    // The same page in another format is another answer.
    expect((await read(byPath("guide/install"))).body.document).toBeDefined();
    for (const url of [install, installById, guide]) {
      expect((await read(url, guest.token)).status).toBe(404);
      expect((await read(url, other.owner.token)).status).toBe(404);
    }
    await seed((draftId, caller) => editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "install", markdown: "Use the installer." }) }));
    expect((await read(install)).body.markdown).toBe("Use the installer.");
    expect((await read(installById)).body.markdown).toBe("Use the installer.");
    expect((await read(guide)).body.pages?.[0]?.markdown).toBe("Use the installer.");
    // A revision of the history keeps answering what it held.
    const pinned = `/v1/spaces/${spaceId}/revisions/${revisionId}/page/install?format=markdown`;
    for (let round = 0; round < 2; round++) expect((await read(pinned)).body.markdown).toBe("```sh\nnpm i imprint\n```");
    expect((await read(pinned, guest.token)).status).toBe(404);
  });
});

describe("GET /v1/spaces/{spaceId}/content/files and /files/{fileId}", () => {
  it("pages through files and answers one file", async () => {
    const fileIds: string[] = [];
    await seed(async (draftId, caller) => {
      for (let i = 0; i < 3; i++) {
        fileIds.push(
          (await editing.uploadFile({ caller, draftId, fileId: "", name: `f${i}.txt`, contentType: "text/plain", content: Buffer.from(`file ${i}`) })).file!.id,
        );
      }
    });
    const first = await org.owner.api.spaces.listFiles(spaceId, { limit: 2 });
    expect(first.data.items).toHaveLength(2);
    expect(first.data.count).toBe(3);
    const second = await org.owner.api.spaces.listFiles(spaceId, { limit: 2, page: first.data.next!.page });
    expect(second.data.items).toHaveLength(1);
    expect(second.data.next).toBeUndefined();
    expect([...first.data.items, ...second.data.items].map((file) => file.id).sort()).toEqual([...fileIds].sort());

    const one = await org.owner.api.spaces.getFileById(spaceId, fileIds[0]!);
    expect(one.data).toMatchObject({ id: fileIds[0], contentType: "text/plain", size: 6 });
    expect(one.data.dimensions).toBeUndefined();
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/files/missing`, { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/files?limit=5000`, { token: org.owner.token })).status).toBe(400);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/files`, { token: other.owner.token })).status).toBe(404);
  });
});

describe("GET /v1/files/{fileId}/download (signed URL)", () => {
  const notInOpenApi = "Imprint's signed download route; GitBook serves files from its CDN";

  it("streams the bytes with their type, without a token, until the URL expires", async () => {
    const { fileId } = await seedGuide();
    const { data } = await org.owner.api.spaces.getFileById(spaceId, fileId);
    expect(data.downloadURL.startsWith(`${stack.baseUrl}/v1/files/${fileId}/download?`)).toBe(true);

    const response = await fetch(data.downloadURL);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-disposition")).toMatch(/^inline; filename="chart\.png"/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);

    const tampered = new URL(data.downloadURL);
    tampered.searchParams.set("signature", "x".repeat(43));
    expect((await call(stack, "GET", tampered.pathname + tampered.search, { notInOpenApi })).status).toBe(403);
    const missing = new URL(data.downloadURL);
    missing.searchParams.delete("expires");
    const invalid = await call(stack, "GET", missing.pathname + missing.search, { notInOpenApi });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toMatch(/^expires: /);

    stack.clock.advanceDays(1);
    const expired = new URL(data.downloadURL);
    expect((await call(stack, "GET", expired.pathname + expired.search, { notInOpenApi })).status).toBe(404);
  });

  it("downloads anything but inert types as attachments", async () => {
    let fileId = "";
    await seed(async (draftId, caller) => {
      fileId = (
        await editing.uploadFile({
          caller,
          draftId,
          fileId: "",
          name: "page.html",
          contentType: "text/html",
          content: Buffer.from("<script>alert(1)</script>"),
        })
      ).file!.id;
    });
    const { data } = await org.owner.api.spaces.getFileById(spaceId, fileId);
    const response = await fetch(data.downloadURL);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(response.headers.get("content-security-policy")).toContain("sandbox");
  });
});
