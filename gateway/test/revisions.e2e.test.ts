import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { PageType } from "@imprint/proto/content/v1/revisions";
import { pageUpdate, pngBytes } from "@imprint/runtime/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../node_modules/@gitbook/api/dist/client.js";
import { commitDraftWork, commitEdits, startEditingStack, stopEditingStack, type DraftCaller, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createOrganizationWithSpace, type TestOrganization } from "./support/factories.js";
import { call, type CallOptions } from "./support/http.js";
import type { TestStack } from "./support/stack.js";

/**
 * A space's history through GitBook's client: every read of `/v1/spaces/{spaceId}/revisions/
 * {revisionId}` (the revision, its pages, files, page documents and reusable contents, and what
 * it changed), documents by id and reusable contents of the current content and of a change
 * request. Content is written through the content service's editing API; every answer is checked
 * against GitBook's OpenAPI.
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
const owner = (options: CallOptions = {}): CallOptions => ({ token: org.owner.token, ...options });
const seed = (work: (draftId: string, caller: DraftCaller) => Promise<unknown>): Promise<string> =>
  commitDraftWork(editing, { userId: org.owner.userId, spaceId }, work);
const revisionPath = (revisionId: string, rest = "") => `/v1/spaces/${spaceId}/revisions/${encodeURIComponent(revisionId)}${rest}`;

interface History {
  /** The first edit: pages, a file, a reusable content and a variable. */
  first: string;
  /** The second: the guide rewritten, the install page deleted, a page added. */
  second: string;
  fileId: string;
  reusableContentId: string;
}

async function seedHistory(): Promise<History> {
  let fileId = "";
  let reusableContentId = "";
  const first = await seed(async (draftId, caller) => {
    const page = (fields: Partial<CreatePageInput>) => editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial(fields) });
    fileId = (await editing.uploadFile({ caller, draftId, fileId: "", name: "chart.png", contentType: "image/png", content: PNG })).file!.id;
    await editing.setVariables({ caller, draftId, variables: { product: "Imprint" } });
    await page({ pageId: "guide", title: "Guide", markdown: `# Guide\n\nWelcome to **{{ space.vars.product }}**.\n\n![Chart](/files/${fileId})` });
    await page({ pageId: "install", parentPageId: "guide", title: "Install", markdown: "Run it." });
    await page({ pageId: "ref", title: "Reference", type: PageType.PAGE_TYPE_GROUP });
    const footer = await editing.setReusableContent({
      caller,
      draftId,
      reusableContentId: "",
      title: "Footer",
      markdown: "Bye from {{ space.vars.product }}",
      delete: false,
    });
    reusableContentId = footer.reusableContent!.id;
  });
  const second = await seed(async (draftId, caller) => {
    await editing.updatePage({ caller, draftId, page: pageUpdate({ pageId: "guide", title: "Getting started", markdown: "# Rewritten" }) });
    await editing.deletePage({ caller, draftId, pageId: "install" });
    await editing.createPage({ caller, draftId, page: CreatePageInput.fromPartial({ pageId: "news", title: "News", markdown: "New." }) });
  });
  return { first, second, fileId, reusableContentId };
}

describe("GET /v1/spaces/{spaceId}/revisions/{revisionId}/…", () => {
  it("reads an old revision as it was while the space has moved on: revision, pages, files, pages by id and path", async () => {
    const { first, second, fileId, reusableContentId } = await seedHistory();
    const api = org.owner.api.spaces;

    const revision = (await api.getRevisionById(spaceId, first)).data;
    expect(revision).toMatchObject({ object: "revision", id: first, type: "edits", variables: { product: "Imprint" } });
    expect(revision.pages.map((page) => page.title)).toEqual(["Guide", "Reference"]);
    expect(revision.reusableContents).toEqual([expect.objectContaining({ id: reusableContentId, title: "Footer" })]);
    expect(revision.urls.app).toContain(`/~/revisions/${first}/`);
    expect((await api.getRevisionById(spaceId, second)).data.parents).toEqual([first]);

    const pages = (await api.listPagesInRevisionById(spaceId, first)).data.pages as unknown as Record<string, unknown>[];
    expect(pages.map((page) => [page.id, page.path])).toEqual([
      ["guide", "guide"],
      ["ref", "reference"],
    ]);
    expect((pages[0]!.pages as Record<string, unknown>[]).map((page) => page.id)).toEqual(["install"]);
    expect((pages[0]!.urls as { app: string }).app).toContain(`/~/revisions/${first}/guide`);
    // The current revision's tree is the new one.
    const current = (await api.listPagesInRevisionById(spaceId, second)).data.pages.map((page) => page.title);
    expect(current).toEqual(["Getting started", "Reference", "News"]);

    const files = (await api.listFilesInRevisionById(spaceId, first, { limit: 10 })).data;
    expect(files.items.map((file) => [file.id, file.name])).toEqual([[fileId, "chart.png"]]);
    expect((await api.getFileInRevisionById(spaceId, first, fileId)).data).toMatchObject({ id: fileId, contentType: "image/png", size: PNG.length });

    const byId = (await api.getPageInRevisionById(spaceId, first, "guide", { format: "markdown", evaluated: true })).data as unknown as Record<string, unknown>;
    expect(byId).toMatchObject({ id: "guide", title: "Guide" });
    expect(byId.markdown).toContain("Welcome to **Imprint**");
    const byPath = (await api.getPageInRevisionByPath(spaceId, first, encodeURIComponent("guide/install"))).data as unknown as Record<string, unknown>;
    expect(byPath).toMatchObject({ id: "install", path: "guide/install" });
    // Gone since: the page is in the old revision only.
    expect((await call(stack, "GET", revisionPath(second, "/page/install"), owner())).status).toBe(404);
  });

  it("answers a page's and a reusable content's body as GitBook's document, evaluated on request, and documents by id", async () => {
    const { first, reusableContentId } = await seedHistory();
    const api = org.owner.api.spaces;

    const document = (await api.getPageDocumentInRevisionById(spaceId, first, "guide")).data;
    expect(document.object).toBe("document");
    expect(JSON.stringify(document)).toContain("{{ space.vars.product }}");
    const evaluated = (await api.getPageDocumentInRevisionById(spaceId, first, "guide", { evaluated: true })).data;
    expect(JSON.stringify(evaluated)).toContain("Imprint");
    expect((await api.getPageDocumentInRevisionById(spaceId, first, "ref")).data).toEqual({ object: "document", data: {}, nodes: [] });

    const reusable = (await api.getReusableContentInRevisionById(spaceId, first, reusableContentId)).data as unknown as Record<string, unknown>;
    expect(reusable).toMatchObject({ id: reusableContentId, title: "Footer", document: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    const reusableDocument = (await api.getReusableContentDocumentInRevisionById(spaceId, first, reusableContentId, { evaluated: true })).data;
    expect(JSON.stringify(reusableDocument)).toContain("Bye from Imprint");
    expect((await api.getReusableContentById(spaceId, reusableContentId)).data).toEqual(reusable);

    // A document id names its body for good: the old guide's, though the guide was rewritten since.
    const oldGuide = (await api.getPageInRevisionById(spaceId, first, "guide")).data as unknown as { documentId: string };
    const byDocumentId = (await api.getDocumentById(spaceId, oldGuide.documentId, { schema: "current" })).data;
    expect(byDocumentId).toEqual(document);
    expect((await api.getDocumentById(spaceId, reusable.document as string)).data).toMatchObject({ object: "document" });
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/documents/${"0".repeat(64)}`, owner())).status).toBe(404);
  });

  it("answers what each revision changed, and a merge's change request as mergedFrom", async () => {
    const { first, second, fileId } = await seedHistory();
    const changes = (await org.owner.api.spaces.getRevisionSemanticChanges(spaceId, second)).data;
    expect(changes.changes.map((change) => `${change.type} ${"page" in change ? change.page.id : ""}`)).toEqual([
      "page_edited guide",
      "page_deleted install",
      "page_created news",
    ]);
    expect(changes.mergedFrom).toBeUndefined();
    const firstChanges = (await org.owner.api.spaces.getRevisionSemanticChanges(spaceId, first, { limit: 2 })).data as {
      changes: { type: string }[];
      more?: number;
      next?: { page: string };
    };
    expect(firstChanges.changes).toHaveLength(2);
    expect(firstChanges.more).toBe(2);
    const rest = await call(stack, "GET", revisionPath(first, `/changes?limit=10&page=${encodeURIComponent(firstChanges.next!.page)}`), owner());
    expect(rest.body.changes.map((change: { type: string; file?: { id: string } }) => [change.type, change.file?.id])).toEqual([
      ["page_created", undefined],
      ["file_created", fileId],
    ]);

    const created = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, owner({ json: { subject: "Proposal" } }));
    const changeRequest = created.body as ChangeRequest;
    await commitEdits(editing, { userId: org.owner.userId, spaceId, changeRequestId: changeRequest.id }, (draft) =>
      draft.createPage({ pageId: "faq", title: "FAQ", markdown: "Questions." }),
    );
    const merged = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests/${changeRequest.id}/merge`, owner());
    const mergeRevision = merged.body.revision as string;
    const ofMerge = (await org.owner.api.spaces.getRevisionSemanticChanges(spaceId, mergeRevision)).data;
    expect(ofMerge.mergedFrom).toMatchObject({ id: changeRequest.id });
    expect(ofMerge.changes.map((change) => change.type)).toEqual(["page_created"]);
    expect((await org.owner.api.spaces.getRevisionById(spaceId, mergeRevision)).data).toMatchObject({ type: "merge", mergedFrom: { id: changeRequest.id } });
  });

  it("reads a reusable content of the current content and of a change request", async () => {
    const { reusableContentId } = await seedHistory();
    const created = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, owner({ json: { subject: "Footer" } }));
    const changeRequestId = (created.body as ChangeRequest).id;
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId, changeRequestId }, (draftId, caller) =>
      editing.setReusableContent({ caller, draftId, reusableContentId, title: "New footer", markdown: "Later", delete: false }),
    );
    const api = org.owner.api.spaces;
    expect((await api.getReusableContentInChangeRequestById(spaceId, changeRequestId, reusableContentId)).data.title).toBe("New footer");
    expect((await api.getReusableContentById(spaceId, reusableContentId)).data.title).toBe("Footer");
    expect((await call(stack, "GET", `/v1/spaces/${spaceId}/content/reusable-contents/nope`, owner())).status).toBe(404);
  });
});

describe("access and refusals", () => {
  it("answers 404 to other organizations, guests, other spaces' revisions and unknown ids; 200 to readers", async () => {
    const { first, fileId, reusableContentId } = await seedHistory();
    const oldGuide = (await org.owner.api.spaces.getPageInRevisionById(spaceId, first, "guide")).data as unknown as { documentId: string };
    const reads = [
      revisionPath(first),
      revisionPath(first, "/changes"),
      revisionPath(first, "/pages"),
      revisionPath(first, "/files"),
      revisionPath(first, `/files/${fileId}`),
      revisionPath(first, "/page/guide"),
      revisionPath(first, "/page/guide/document"),
      revisionPath(first, "/path/guide"),
      revisionPath(first, `/reusable-contents/${reusableContentId}`),
      revisionPath(first, `/reusable-contents/${reusableContentId}/document`),
      `/v1/spaces/${spaceId}/documents/${oldGuide.documentId}`,
      `/v1/spaces/${spaceId}/content/reusable-contents/${reusableContentId}`,
    ];
    const reader = await createMember(stack, org, { role: "read" });
    const guest = await createMember(stack, org, { role: "guest" });
    const stranger = await createOrganization(stack);
    for (const path of reads) {
      expect([path, (await call(stack, "GET", path, { token: reader.token })).status]).toEqual([path, 200]);
      expect([path, (await call(stack, "GET", path, { token: guest.token })).status]).toEqual([path, 404]);
      expect([path, (await call(stack, "GET", path, { token: stranger.owner.token })).status]).toEqual([path, 404]);
      expect([path, (await call(stack, "GET", path)).status]).toEqual([path, 401]);
    }

    // A revision of another space of the organization is not one of this space's, whatever is read of it.
    const other = await call(stack, "POST", `/v1/orgs/${org.organizationId}/spaces`, owner({ json: { title: "Other" } }));
    const otherRevision = (await call(stack, "GET", `/v1/spaces/${other.body.id}/content`, owner())).body.id as string;
    for (const rest of ["", "/changes", "/pages", "/page/guide", "/page/guide/document"]) {
      expect([rest, (await call(stack, "GET", revisionPath(otherRevision, rest), owner())).status]).toEqual([rest, 404]);
    }
    for (const unknown of ["not-a-revision", "0".repeat(32)]) expect((await call(stack, "GET", revisionPath(unknown), owner())).status).toBe(404);
  });

  it("answers 400 naming the field for ids and parameters it cannot take", async () => {
    const { first } = await seedHistory();
    const cases: [string, RegExp][] = [
      [revisionPath("x".repeat(129)), /^revisionId: /],
      [revisionPath(first, `/page/${"x".repeat(129)}/document`), /^pageId: /],
      [revisionPath(first, `/reusable-contents/${"x".repeat(129)}`), /^reusableContentId: /],
      [`/v1/spaces/${spaceId}/documents/${"x".repeat(129)}`, /^documentId: /],
      [revisionPath(first, "/changes?limit=0"), /^limit: must be an integer between 1 and 1000$/],
      [revisionPath(first, "/changes?page=forged"), /^page: /],
      [revisionPath(first, "/page/guide/document?evaluated=maybe"), /^evaluated: /],
      [revisionPath(first, "?metadata=nope"), /^metadata: /],
      [`/v1/spaces/${spaceId}/documents/abc?schema=old`, /^schema: /],
    ];
    for (const [path, message] of cases) {
      const response = await call(stack, "GET", path, owner());
      expect([path, response.status]).toEqual([path, 400]);
      expect(response.body.error.message).toMatch(message);
    }
  });
});
