import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitEdits, startEditingStack, stopEditingStack, type DraftEdits, type EditingClient } from "./support/editing.js";
import { createMember, createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallResult } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * updateChangeRequestContent end to end: batches of GitBook's content changes applied to a change
 * request through the gateway (collaboration → content's UpdateBranchContent), read back through
 * the change request's content, links and search, then merged. Every answer is checked against
 * GitBook's OpenAPI for the operation.
 */
let stack: TestStack;
let editing: EditingClient;
let org: TestOrganization;
let spaceId: string;
let files: Server;
let filesUrl: string;

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  ({ stack, editing } = await startEditingStack());
  files = createServer((request, response) => {
    if (request.url === "/logo.png") {
      response.writeHead(200, { "content-type": "image/png" });
      response.end(PNG);
      return;
    }
    if (request.url === "/article.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html><head><title>Fallback &amp; title</title><meta property="og:title" content="Widgets &amp; gears">` +
          `<meta property="og:site_name" content="Acme Docs"><link rel="shortcut icon" href="/logo.png"></head><body>Hello</body></html>`,
      );
      return;
    }
    if (request.url === "/bare.html") {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html><head><title>  Just a\n title </title></head></html>");
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => files.close(resolve));
  await stopEditingStack(stack, editing);
});
beforeEach(async () => {
  ({ org, spaceId } = await createOrganizationWithSpace(stack));
});

const editMain = (work: (draft: DraftEdits) => Promise<unknown>) => commitEdits(editing, { userId: org.owner.userId, spaceId }, work);

/** Main content: guides (getting-started, deep) and faq. */
const seedMain = () =>
  editMain(async (draft) => {
    await draft.createPage({ pageId: "guides", title: "Guides", slug: "guides", markdown: "All guides." });
    await draft.createPage({ pageId: "start", parentPageId: "guides", title: "Getting started", slug: "getting-started", markdown: "Start here." });
    await draft.createPage({ pageId: "deep", parentPageId: "guides", title: "Deep dive", slug: "deep", markdown: "Deeper." });
    await draft.createPage({ pageId: "faq", title: "FAQ", slug: "faq", markdown: "Questions." });
  });

const crPath = (changeRequestId: string | number, rest = "") => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}${rest}`;

async function createChangeRequest(): Promise<ChangeRequest> {
  const response = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, { token: org.owner.token, json: { subject: "Authoring" } });
  if (response.status !== 201) throw new Error(`createChangeRequest answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as ChangeRequest;
}

const apply = (changeRequestId: string | number, changes: unknown[], options: { compat?: boolean; token?: string } = {}): Promise<CallResult> =>
  call(stack, "POST", crPath(changeRequestId, `/content${options.compat === undefined ? "" : `?compat=${options.compat}`}`), {
    token: options.token ?? org.owner.token,
    json: { changes },
  });

const revisionOf = async (changeRequestId: string | number) =>
  (await call(stack, "GET", crPath(changeRequestId), { token: org.owner.token })).body.revision as string;

interface ReadPage {
  title: string;
  description?: string;
  hidden?: boolean;
  markdown: string;
  slug: string;
}
async function pageAt(contentPath: string, pageId: string): Promise<ReadPage> {
  const response = await call(stack, "GET", `${contentPath}/page/${pageId}?format=markdown`, { token: org.owner.token });
  expect(response.status).toBe(200);
  return response.body as ReadPage;
}

interface TreePage {
  id: string;
  slug: string;
  pages?: TreePage[];
}
/** The page tree as `slug(child, child)` strings, in order. */
async function tree(contentPath: string): Promise<string[]> {
  const response = await call(stack, "GET", contentPath, { token: org.owner.token });
  expect(response.status).toBe(200);
  const render = (page: TreePage): string => (page.pages?.length ? `${page.slug}(${page.pages.map(render).join(",")})` : page.slug);
  return (response.body.pages as TreePage[]).map(render);
}
const crContent = (changeRequestId: string | number) => crPath(changeRequestId, "/content");

describe("POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content", () => {
  it("inserts pages and files in one revision, with refs, front matter, a leading heading and every link form resolved (compat=false)", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const markdown = [
      "---",
      "description: A new guide",
      "hidden: true",
      "---",
      "# New guide",
      "",
      "By [id](/pages/faq), [slug path](/pages/guides/getting-started), [git path](/pages/faq.md), [folder readme](/pages/guides/README.md),",
      "[root readme](/pages/README.md), [sibling](./getting-started.md#setup), [up](../faq.md), [parent](./README.md), [folder](./deep),",
      "[ref](./other.md), [missing](./nowhere.md), [external](https://example.com/x).",
      "",
      "![Diagram](./diagram.png) and [the logo](./logo.png).",
      "",
    ].join("\n");
    const response = await apply(
      cr.id,
      [
        { operation: "insert_page", ref: "new", into: "guides", at: 0, document: { markdown } },
        {
          operation: "insert_files",
          files: [
            { ref: "diagram.png", name: "diagram.png", contentType: "image/png", base64: PNG.toString("base64") },
            { ref: "logo.png", name: "logo.png", url: `${filesUrl}/logo.png` },
          ],
        },
        { operation: "insert_page", ref: "other", title: "Other page", document: { markdown: "Back to [the new guide](./new) and [by ref](./new.md)." } },
      ],
      { compat: false },
    );
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.changeRequest).toMatchObject({ object: "change-request", id: cr.id });
    expect(body.changeRequest.revision).not.toBe(cr.revision);
    expect(body.changes.map((change: { object: string; ref?: string }) => [change.object, change.ref])).toEqual([
      ["created_page", "new"],
      ["created_page", "other"],
    ]);
    const [newId, otherId] = body.changes.map((change: { page: { id: string } }) => change.page.id);
    expect(body.changes[0].page.urls.location).toMatch(new RegExp(`/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/${newId}$`));
    expect(body.insertedFiles.map((file: { name: string; contentType: string }) => `${file.name} ${file.contentType}`)).toEqual([
      "diagram.png image/png",
      "logo.png image/png",
    ]);
    const [diagramId, logoId] = body.insertedFiles.map((file: { id: string }) => file.id);

    const page = await pageAt(crContent(cr.id), newId);
    expect(page).toMatchObject({ title: "New guide", description: "A new guide", hidden: true, slug: "new-guide" });
    const expected = [
      "[id](/pages/faq)",
      "[slug path](/pages/start)",
      "[git path](/pages/faq)",
      "[folder readme](/pages/guides)",
      "[root readme](/pages/guides)",
      "[sibling](/pages/start#setup)",
      "[up](/pages/faq)",
      "[parent](/pages/guides)",
      "[folder](/pages/deep)",
      `[ref](/pages/${otherId})`,
      "[external](https://example.com/x)",
      `![Diagram](/files/${diagramId})`,
      `[the logo](/files/${logoId})`,
    ];
    for (const link of expected) expect(page.markdown).toContain(link);
    expect(page.markdown).toContain(" missing, ");
    expect(page.markdown).not.toContain("nowhere");
    expect(page.markdown).not.toContain("# New guide");
    expect((await pageAt(crContent(cr.id), otherId)).markdown).toContain(`[the new guide](/pages/${newId}) and [by ref](/pages/${newId})`);
    expect(await tree(crContent(cr.id))).toEqual(["guides(new-guide,getting-started,deep)", "faq", "other-page"]);
    // The space's own content is untouched until the merge.
    expect(await tree(`/v1/spaces/${spaceId}/content`)).toEqual(["guides(getting-started,deep)", "faq"]);
  });

  it("updates, renames, moves with into/at and deletes with descendants (compat=true answers the change request)", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const response = await apply(cr.number, [
      {
        operation: "update_page",
        page: "faq",
        title: "Questions",
        slug: "questions",
        document: { markdown: "---\nicon: circle-question\n---\nUpdated answers." },
      },
      { operation: "update_page", page: "start", into: null, at: 0 },
      { operation: "update_page", page: "faq", at: 0 },
      { operation: "delete_page", page: "guides" },
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ object: "change-request", id: cr.id, number: cr.number });
    expect(await tree(crContent(cr.id))).toEqual(["questions", "getting-started"]);
    expect(await pageAt(crContent(cr.id), "faq")).toMatchObject({
      title: "Questions",
      slug: "questions",
      markdown: expect.stringContaining("Updated answers."),
    });
    const deep = await call(stack, "GET", `${crContent(cr.id)}/page/deep`, { token: org.owner.token });
    expect(deep.status).toBe(404);
  });

  it("inserts and updates pages from GitBook's JSON documents, read back as markdown and as documents; a bad document answers 400 naming its path", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const text = (value: string, marks: string[] = []) => ({
      object: "text",
      leaves: [{ object: "leaf", text: value, marks: marks.map((type) => ({ object: "mark", type })) }],
    });
    const block = (type: string, nodes: unknown[], data: Record<string, unknown> = {}) => ({ object: "block", type, data, nodes });
    const link = (ref: Record<string, string>, label: string) => ({ object: "inline", type: "link", isVoid: false, data: { ref }, nodes: [text(label)] });
    const document = {
      object: "document",
      data: {},
      nodes: [
        block("heading-2", [text("Overview")]),
        block("paragraph", [
          text("Read "),
          link({ kind: "page", page: "faq" }, "the FAQ"),
          text(" and "),
          link({ kind: "url", url: "https://example.com/x" }, "this"),
          text(", then "),
          text("bold", ["bold"]),
        ]),
        block("list-tasks", [
          block("list-item", [block("paragraph", [text("done")])], { checked: true }),
          block("list-item", [block("paragraph", [text("todo")])], { checked: false }),
        ]),
        block("code", [block("code-line", [text("const a = 1;")]), block("code-line", [text("a++;")])], { syntax: "js" }),
        block("hint", [block("paragraph", [text("Careful", ["italic"])])], { style: "warning" }),
      ],
    };
    const inserted = await apply(cr.id, [{ operation: "insert_page", title: "From JSON", document: { document } }], { compat: false });
    expect(inserted.status).toBe(200);
    const pageId = inserted.body.changes[0].page.id as string;

    const markdown = await pageAt(crContent(cr.id), pageId);
    expect(markdown.title).toBe("From JSON");
    expect(markdown.markdown).toBe(
      '## Overview\n\nRead [the FAQ](/pages/faq) and [this](https://example.com/x), then **bold**\n\n- [x] done\n- [ ] todo\n\n```js\nconst a = 1;\na++;\n```\n\n{% hint style="warning" %}\n\n*Careful*\n\n{% endhint %}\n',
    );
    const asDocument = await call(stack, "GET", `${crContent(cr.id)}/page/${pageId}?format=document`, { token: org.owner.token });
    expect(asDocument.status).toBe(200);
    const nodes = asDocument.body.document.nodes as {
      type: string;
      data: Record<string, unknown>;
      nodes: { object: string; type?: string; data?: unknown }[];
    }[];
    expect(nodes.map((node) => node.type)).toEqual(["heading-2", "paragraph", "list-tasks", "code", "hint"]);
    expect(nodes[1]!.nodes.filter((node) => node.object === "inline").map((node) => node.data)).toEqual([
      { ref: { kind: "page", page: "faq" } },
      { ref: { kind: "url", url: "https://example.com/x" } },
    ]);
    expect(nodes[3]!.data).toEqual({ syntax: "js" });
    expect(nodes[4]!.data).toEqual({ style: "warning" });

    // Update: a JSON document links to the inserted page by id; a link to a page that is not there becomes text.
    const updated = await apply(cr.id, [
      {
        operation: "update_page",
        page: "start",
        document: {
          document: {
            object: "document",
            nodes: [
              block("list-ordered", [
                block("list-item", [block("paragraph", [link({ kind: "page", page: pageId }, "new page")])]),
                block("list-item", [block("paragraph", [link({ kind: "page", page: "gone" }, "gone")])]),
              ]),
              block("blockquote", [block("paragraph", [text("quoted "), text("code", ["code"])])]),
              { object: "block", type: "divider", isVoid: true, data: {} },
            ],
          },
        },
      },
    ]);
    expect(updated.status).toBe(200);
    const start = await pageAt(crContent(cr.id), "start");
    expect(start).toMatchObject({ title: "Getting started", markdown: `1. [new page](/pages/${pageId})\n2. gone\n\n> quoted \`code\`\n\n***\n` });
    const startDocument = await call(stack, "GET", `${crContent(cr.id)}/page/start?format=document`, { token: org.owner.token });
    expect(startDocument.status).toBe(200);
    expect((startDocument.body.document.nodes as { type: string }[]).map((node) => node.type)).toEqual(["list-ordered", "blockquote", "divider"]);
    expect(JSON.stringify(startDocument.body.document)).toContain(JSON.stringify({ kind: "page", page: pageId }));

    // Bad documents: the shape at the gateway, the nodes in content; the head stays.
    const before = await revisionOf(cr.id);
    const unknownBlock = await apply(cr.id, [
      { operation: "insert_page", title: "Fine", document: { markdown: "fine" } },
      {
        operation: "update_page",
        page: "faq",
        document: { document: { object: "document", nodes: [block("paragraph", [text("a")]), block("blockquote", [block("drawing", [])])] } },
      },
    ]);
    expect(unknownBlock.status).toBe(400);
    expect(unknownBlock.body.error.message).toBe('changes[1].document.document.nodes[1].nodes[0]: block type "drawing" is not supported');
    const unknownMark = await apply(cr.id, [
      { operation: "insert_page", title: "X", document: { document: { object: "document", nodes: [block("paragraph", [text("a", ["color"])])] } } },
    ]);
    expect(unknownMark.status).toBe(400);
    expect(unknownMark.body.error.message).toBe('changes[0].document.document.nodes[0].nodes[0].leaves[0].marks[0]: mark type "color" is not supported');
    const notADocument = await apply(cr.id, [{ operation: "insert_page", title: "X", document: { document: { object: "block", nodes: [] } } }]);
    expect(notADocument.status).toBe(400);
    expect(notADocument.body.error.message).toMatch(/changes\[0\]\.document\.document\.object: /);
    const both = await apply(cr.id, [{ operation: "insert_page", title: "X", document: { markdown: "x", document: { object: "document", nodes: [] } } }]);
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/changes\[0\]\.document: set one of markdown or document, not both/);
    expect(await revisionOf(cr.id)).toBe(before);
  });

  it("saves a JSON document over a page changing the markdown of the edited block only, as an editor that read the page sends it back", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const handwritten = [
      "Intro with __strong__ words and [the FAQ](/pages/faq).",
      "",
      "* one",
      "* two",
      "",
      "---",
      "",
      "|a|b|",
      "|-|-|",
      "|1|2|",
      "",
      '{% hint style="info" %}',
      "A tight hint.",
      "{% endhint %}",
      "",
      "The paragraph to edit.",
      "",
    ].join("\n");
    expect((await apply(cr.id, [{ operation: "update_page", page: "start", document: { markdown: handwritten } }])).status).toBe(200);
    expect((await pageAt(crContent(cr.id), "start")).markdown).toBe(handwritten);

    const read = await call(stack, "GET", `${crContent(cr.id)}/page/start?format=document`, { token: org.owner.token });
    expect(read.status).toBe(200);
    const document = read.body.document as { nodes: { type: string; nodes: { leaves?: { text: string }[] }[] }[] };
    const edited = document.nodes[document.nodes.length - 1]!;
    expect(edited.type).toBe("paragraph");
    edited.nodes[0]!.leaves![0]!.text = "The paragraph, edited in the app.";
    const saved = await apply(cr.id, [{ operation: "update_page", page: "start", document: { document } }]);
    expect(saved.status).toBe(200);

    expect((await pageAt(crContent(cr.id), "start")).markdown).toBe(handwritten.replace("The paragraph to edit.", "The paragraph, edited in the app."));
    const readAgain = await call(stack, "GET", `${crContent(cr.id)}/page/start?format=document`, { token: org.owner.token });
    expect(readAgain.body.document).toEqual(document);
  });

  it("reverts an added page (removed), a deleted page (restored at its place with its sub-pages) and a modified page (reset)", async () => {
    const base = await seedMain();
    const cr = await createChangeRequest();
    const first = await apply(
      cr.id,
      [
        { operation: "insert_page", title: "Added", document: { markdown: "New." } },
        { operation: "delete_page", page: "guides" },
        { operation: "update_page", page: "faq", title: "Changed", document: { markdown: "Changed body." } },
      ],
      { compat: false },
    );
    expect(first.status).toBe(200);
    const addedId = first.body.changes[0].page.id;
    expect(await tree(crContent(cr.id))).toEqual(["faq", "added"]);

    const reverted = await apply(
      cr.id,
      [
        { operation: "revert_page", page: addedId },
        { operation: "revert_page", page: "guides" },
        { operation: "revert_page", page: "faq", revision: base },
      ],
      { compat: false },
    );
    expect(reverted.status).toBe(200);
    expect(reverted.body.changes.map((change: { object: string }) => change.object)).toEqual(["deleted_page", "created_page", "updated_page"]);
    expect(await tree(crContent(cr.id))).toEqual(["guides(getting-started,deep)", "faq"]);
    expect(await pageAt(crContent(cr.id), "faq")).toMatchObject({ title: "FAQ", markdown: expect.stringContaining("Questions.") });
    expect((await pageAt(crContent(cr.id), "deep")).markdown).toContain("Deeper.");

    const block = await apply(cr.id, [{ operation: "revert_page", page: "faq", block: ["key"] }]);
    expect(block.status).toBe(400);
    expect(block.body.error.message).toMatch(/^changes\[0\]\.block: block-level revert is not supported/);
  });

  it("applies a 50-change batch all or nothing: one bad change answers 400 naming its index and field, and the head stays", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const before = await revisionOf(cr.id);
    const changes: unknown[] = Array.from({ length: 50 }, (_, index) => ({
      operation: "insert_page",
      title: `Page ${index}`,
      document: { markdown: `Body ${index}.` },
    }));
    changes[37] = { operation: "update_page", page: "no-such-page", title: "Nope" };
    const bad = await apply(cr.id, changes);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^changes\[37\]\.page: /);
    expect(await revisionOf(cr.id)).toBe(before);
    expect(await tree(crContent(cr.id))).toEqual(["guides(getting-started,deep)", "faq"]);

    const collision = await apply(cr.id, [{ operation: "insert_page", title: "Again", slug: "faq", document: { markdown: "x" } }]);
    expect(collision.status).toBe(400);
    expect(collision.body.error.message).toMatch(/^changes\[0\]\.slug: /);

    const tooMany = await apply(cr.id, [...changes.slice(0, 37), ...changes.slice(38), changes[0], changes[1]]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/^changes: must hold 1 to 50 changes, got 51/);
    const none = await apply(cr.id, []);
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/^changes: must hold 1 to 50 changes, got 0/);
    const shape = await apply(cr.id, [{ operation: "insert_files", files: [{ name: "a.png", url: "http://x", base64: "AA==" }] }]);
    expect(shape.status).toBe(400);
    expect(shape.body.error.message).toMatch(/changes\[0\]\.files\[0\]: set exactly one of url or base64/);
    expect(await revisionOf(cr.id)).toBe(before);

    const good = await apply(
      cr.id,
      changes.map((change, index) => (index === 37 ? { operation: "insert_page", title: "Page 37", document: { markdown: "Body 37." } } : change)),
    );
    expect(good.status).toBe(200);
    expect(await tree(crContent(cr.id))).toHaveLength(52);
  });

  it("refuses merged and archived change requests, read members (403) and other organizations (404)", async () => {
    await seedMain();
    const change = [{ operation: "insert_page", title: "New", document: { markdown: "x" } }];
    const archived = await createChangeRequest();
    await call(stack, "PATCH", crPath(archived.id), { token: org.owner.token, json: { status: "archived" } });
    const refusedArchived = await apply(archived.id, change);
    expect(refusedArchived.status).toBe(412);
    expect(refusedArchived.body.error.message).toMatch(/archived: reopen it/);

    const merged = await createChangeRequest();
    expect((await apply(merged.id, change)).status).toBe(200);
    expect((await call(stack, "POST", crPath(merged.id, "/merge"), { token: org.owner.token })).status).toBe(200);
    const refusedMerged = await apply(merged.id, change);
    expect(refusedMerged.status).toBe(412);
    expect(refusedMerged.body.error.message).toMatch(/merged/);

    const open = await createChangeRequest();
    const reader = await createMember(stack, org, { role: "read" });
    expect((await apply(open.id, change, { token: reader.token })).status).toBe(403);
    const other = await createOrganizationWithSpace(stack);
    expect((await apply(open.id, change, { token: other.org.owner.token })).status).toBe(404);
    expect((await apply("999", change)).status).toBe(404);
  });

  it("lands two racing batches on one branch in order, losing neither (or answers 409 for one)", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const batch = (name: string) =>
      apply(
        cr.id,
        Array.from({ length: 10 }, (_, index) => ({ operation: "insert_page", title: `${name} ${index}`, document: { markdown: `${name}.` } })),
      );
    const [a, b] = await Promise.all([batch("Alpha"), batch("Beta")]);
    expect([a.status, b.status].every((status) => status === 200 || status === 409)).toBe(true);
    expect([a.status, b.status]).toContain(200);
    const slugs = await tree(crContent(cr.id));
    const landed = (name: string) => slugs.filter((slug) => slug.startsWith(name.toLowerCase())).length;
    expect(landed("Alpha")).toBe(a.status === 200 ? 10 : 0);
    expect(landed("Beta")).toBe(b.status === 200 ? 10 : 0);
  });

  it("is seen by the change request's links and contributors, then merged into the space where search finds it", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const word = "zanzibarquokka";
    const response = await apply(
      cr.id,
      [{ operation: "insert_page", title: "Linked", document: { markdown: `About ${word}, see [the FAQ](/pages/faq.md).` } }],
      { compat: false },
    );
    expect(response.status).toBe(200);
    const pageId = response.body.changes[0].page.id;
    const links = await eventually(async () => {
      const listed = await call(stack, "GET", crPath(cr.id, "/links"), {
        token: org.owner.token,
        notInOpenApi: "link listings exist up to @gitbook/api 0.181.0 only (links.e2e.test.ts validates their schema)",
      });
      return listed.status === 200 && listed.body.items.length > 0 ? listed : undefined;
    }, 10_000);
    expect(JSON.stringify(links.body.items)).toContain(pageId);
    expect(JSON.stringify(links.body.items)).toContain('"faq"');

    // The editor who applied a batch is a contributor of the change request.
    const editor = await createMember(stack, org, { role: "edit" });
    expect((await apply(cr.id, [{ operation: "update_page", page: pageId, description: "Edited by a member" }], { token: editor.token })).status).toBe(200);
    const contributed = await call(stack, "GET", `/v1/spaces/${spaceId}/change-requests?contributor=${editor.userId}`, { token: org.owner.token });
    expect(contributed.body.items.map((item: { id: string }) => item.id)).toEqual([cr.id]);

    expect((await call(stack, "POST", crPath(cr.id, "/merge"), { token: org.owner.token })).status).toBe(200);
    expect((await pageAt(`/v1/spaces/${spaceId}/content`, pageId)).markdown).toContain("[the FAQ](/pages/faq)");
    const found = await eventually(async () => {
      const search = await call(stack, "GET", `/v1/spaces/${spaceId}/search?query=${word}`, { token: org.owner.token });
      return search.status === 200 && search.body.items.length > 0 ? search : undefined;
    }, 10_000);
    expect(found.body.items[0].id).toBe(pageId);
  });
});

describe("getEmbedByUrl", () => {
  it("answers what a page says of itself, a plain link for what cannot be read, and 400 for what is no http(s) URL", async () => {
    const api = org.owner.api;
    expect((await api.urls.getEmbedByUrl({ url: `${filesUrl}/article.html` })).data).toEqual({
      type: "link",
      title: "Widgets & gears",
      site: "Acme Docs",
      icon: `${filesUrl}/logo.png`,
    });
    expect((await api.urls.getEmbedByUrl({ url: `${filesUrl}/bare.html` })).data).toEqual({
      type: "link",
      title: "Just a title",
      site: new URL(filesUrl).host,
    });
    // Not HTML, or not there: the URL alone.
    for (const url of [`${filesUrl}/logo.png`, `${filesUrl}/missing.html`]) {
      expect((await api.urls.getEmbedByUrl({ url })).data).toEqual({ type: "link", title: url, site: new URL(filesUrl).host });
    }
    for (const url of ["ftp://example.com/file", "not a url", "http://user:secret@example.com/"]) {
      const refused = await call(stack, "GET", `/v1/urls/embed?url=${encodeURIComponent(url)}`, { token: org.owner.token });
      expect(refused.status, url).toBe(400);
      expect((refused.body as { error: { message: string } }).error.message).toMatch(/^url: /);
    }
    expect((await call(stack, "GET", "/v1/urls/embed", { token: org.owner.token })).status).toBe(400);
    expect((await call(stack, "GET", `/v1/urls/embed?url=${encodeURIComponent(`${filesUrl}/article.html`)}`)).status).toBe(401);
  });
});

describe("getContentByUrl", () => {
  it("resolves every application URL Imprint answers: a collection, a space, its pages, a change request, a revision, a site", async () => {
    await seedMain();
    const api = org.owner.api;
    const byUrl = async (url: string) => (await api.urls.getContentByUrl({ url })).data as Record<string, { id: string; title?: string; number?: number }>;
    const space = (await api.spaces.getSpaceById(spaceId)).data;
    expect(await byUrl(space.urls.app)).toMatchObject({ space: { id: spaceId } });

    const page = (await api.spaces.getPageById(spaceId, "start")).data;
    const resolvedPage = await byUrl((page as { urls: { app: string } }).urls.app);
    expect(resolvedPage).toMatchObject({ space: { id: spaceId }, page: { id: page.id, title: "Getting started" } });
    expect(resolvedPage.changeRequest).toBeUndefined();

    const cr = await createChangeRequest();
    expect(await byUrl(cr.urls.app)).toMatchObject({ space: { id: spaceId }, changeRequest: { id: cr.id, number: cr.number } });
    const crPage = (await api.spaces.getPageInChangeRequestById(spaceId, cr.id, "faq")).data as { id: string; urls: { app: string } };
    expect(await byUrl(crPage.urls.app)).toMatchObject({ changeRequest: { id: cr.id }, page: { id: crPage.id, title: "FAQ" } });

    const revision = (await api.spaces.getCurrentRevision(spaceId)).data;
    expect(await byUrl(revision.urls.app)).toMatchObject({ space: { id: spaceId } });
    const revisionPage = (await api.spaces.getPageInRevisionById(spaceId, revision.id, "faq")).data as { id: string; urls: { app: string } };
    expect(revisionPage.urls.app).toContain(`/~/revisions/${revision.id}/`);
    expect(await byUrl(revisionPage.urls.app)).toMatchObject({ page: { id: revisionPage.id } });

    const collection = (await api.orgs.createCollection(org.organizationId, { title: "Shelf" })).data;
    expect(await byUrl(collection.urls.app)).toMatchObject({ collection: { id: collection.id, title: "Shelf" } });

    const site = (await api.orgs.createSite(org.organizationId, { title: "Resolved", spaces: [spaceId] })).data;
    expect(await byUrl(site.urls.app)).toMatchObject({ space: { id: spaceId } });
    expect(await byUrl(site.urls.preview)).toMatchObject({ space: { id: spaceId } });
  });

  it("answers 404 for a URL naming no content, another organization's or a missing one, and 400 without url", async () => {
    const space = (await org.owner.api.spaces.getSpaceById(spaceId)).data;
    const resolve = (url: string, token = org.owner.token) => call(stack, "GET", `/v1/urls/content?url=${encodeURIComponent(url)}`, { token });
    const organization = (await org.owner.api.orgs.getOrganizationById(org.organizationId)).data;
    for (const url of [
      "https://elsewhere.example/o/x/s/y/",
      organization.urls.app,
      space.urls.app.replace(`/o/${org.organizationId}/`, `/o/${spaceId}/`),
      `${space.urls.app}no/such/page`,
      `${space.urls.app}~/changes/999/`,
      `${space.urls.app}~/revisions/${spaceId}/`,
      "not a url",
    ]) {
      const response = await resolve(url);
      expect(response.status, url).toBe(404);
    }
    const { org: other } = await createOrganizationWithSpace(stack);
    expect((await resolve(space.urls.app, other.owner.token)).status).toBe(404);
    const missing = await call(stack, "GET", "/v1/urls/content", { token: org.owner.token });
    expect([missing.status, missing.body.error.message]).toEqual([400, expect.stringMatching(/^url: /)]);
  });
});

describe("page meta-links", () => {
  it("answers a page's meta links (none: Imprint's pages set no canonical URL or alternates) in the space, a change request and a revision", async () => {
    await seedMain();
    const api = org.owner.api.spaces;
    const cr = await createChangeRequest();
    const revision = (await api.getCurrentRevision(spaceId)).data;
    expect((await api.listSpacePageMetaLinks(spaceId, "faq")).data).toEqual({});
    expect((await api.listChangeRequestPageMetaLinks(spaceId, cr.id, "faq")).data).toEqual({});
    expect((await api.listRevisionPageMetaLinks(spaceId, revision.id, "faq")).data).toEqual({});
  });

  it("answers 404 for a missing page, another organization's space and an unknown revision; 400 for a malformed page id", async () => {
    await seedMain();
    const cr = await createChangeRequest();
    const revision = (await org.owner.api.spaces.getCurrentRevision(spaceId)).data;
    const get = (path: string, token = org.owner.token) => call(stack, "GET", path, { token });
    for (const path of [
      `/v1/spaces/${spaceId}/content/page/nothing/meta-links`,
      `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/page/nothing/meta-links`,
      `/v1/spaces/${spaceId}/revisions/${revision.id}/page/nothing/meta-links`,
      `/v1/spaces/${spaceId}/revisions/${spaceId}/page/faq/meta-links`,
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    const { org: other } = await createOrganizationWithSpace(stack);
    expect((await get(`/v1/spaces/${spaceId}/content/page/faq/meta-links`, other.owner.token)).status).toBe(404);
    const malformed = await get(`/v1/spaces/${spaceId}/content/page/${"x".repeat(300)}/meta-links`);
    expect([malformed.status, malformed.body.error.message]).toEqual([400, expect.stringMatching(/^pageId: /)]);
  });
});
