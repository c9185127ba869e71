import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import type { PromiseClient } from "@imprint/runtime";
import { testClient } from "@imprint/runtime/testing";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { commitDraftWork, commitEdits, editingClient, type EditingClient } from "./support/editing.js";
import { createMember, createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * PDF exports through the gateway: getSpacePDF end to end (a whole space or one page, read rights,
 * the exporter's limits), the signed download route, and the validation of getChangeRequestPDF.
 */
let stack: TestStack;
let editing: EditingClient;
let exportsClient: PromiseClient<typeof ExportServiceService>;
let org: TestOrganization;
let spaceId: string;

beforeAll(async () => {
  stack = await startStack();
  editing = editingClient(stack);
  exportsClient = testClient(ExportServiceService, stack.contentAddress);
});
afterAll(async () => {
  exportsClient?.close();
  editing?.close();
  await stack?.stop();
});
beforeEach(async () => {
  org = await createOrganization(stack);
  spaceId = (await createSpace(stack, org, { title: "Ops Runbook" })).id;
  await commitEdits(editing, { userId: org.owner.userId, spaceId }, (draft) =>
    draft.createPage({ pageId: "start", title: "Start", markdown: "# On call\n\nPage the **primary** first." }),
  );
});

const notInOpenApi = "Imprint's signed export download; GitBook serves PDFs from its own storage";

async function exportUrl(): Promise<URL> {
  const exported = await exportsClient.exportPdf({
    caller: { userId: org.owner.userId, tokenId: "" },
    ref: { spaceId, changeRequestId: "", revisionId: "" },
    pageId: "",
    only: false,
  });
  return new URL(exported.url);
}

describe("GET /v1/exports/{exportId}/download (signed URL)", () => {
  it("serves the PDF as an attachment, without a token, until the URL expires", async () => {
    const url = await exportUrl();
    expect(url.origin).toBe(stack.baseUrl);

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="Ops Runbook.pdf"; filename*=UTF-8''Ops%20Runbook.pdf`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");

    const tampered = new URL(url);
    tampered.searchParams.set("signature", "x".repeat(43));
    expect((await call(stack, "GET", tampered.pathname + tampered.search, { notInOpenApi })).status).toBe(403);
    const missing = new URL(url);
    missing.searchParams.delete("expires");
    const invalid = await call(stack, "GET", missing.pathname + missing.search, { notInOpenApi });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toMatch(/^expires: /);

    stack.clock.advanceDays(1);
    expect((await call(stack, "GET", url.pathname + url.search, { notInOpenApi })).status).toBe(404);
  });
});

describe("GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf", () => {
  const pdfPath = (query = "") => `/v1/spaces/${spaceId}/change-requests/unknown/pdf${query}`;

  it("validates its query, needs a token, and answers 404 for a change request that does not exist", async () => {
    const invalid = await call(stack, "GET", pdfPath("?only=maybe"), { token: org.owner.token });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toBe("only: must be true or false");
    const longPage = await call(stack, "GET", pdfPath(`?page=${"p".repeat(65)}`), { token: org.owner.token });
    expect(longPage.status).toBe(400);
    expect(longPage.body.error.message).toMatch(/^page: /);

    expect((await call(stack, "GET", pdfPath())).status).toBe(401);
    expect((await call(stack, "GET", pdfPath("?only=true&page=start"), { token: org.owner.token })).status).toBe(404);
    const other = await createOrganization(stack);
    expect((await call(stack, "GET", pdfPath(), { token: other.owner.token })).status).toBe(404);
  });
});

/** Pages of a PDF as pdfkit writes them (uncompressed page objects). */
function pdfPageCount(bytes: Buffer): number {
  return bytes.toString("latin1").match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/pdf");
  return Buffer.from(await response.arrayBuffer());
}

describe("GET /v1/spaces/{spaceId}/pdf (getSpacePDF)", () => {
  const pdfPath = (query = "") => `/v1/spaces/${spaceId}/pdf${query}`;

  it("answers a signed URL to the whole space's PDF, or to one page with or without its sub-pages", async () => {
    await commitEdits(editing, { userId: org.owner.userId, spaceId }, async (draft) => {
      await draft.createPage({ pageId: "escalation", parentPageId: "start", title: "Escalation", markdown: "Call the **secondary** after 15 minutes." });
      await draft.createPage({ pageId: "postmortem", title: "Postmortems", markdown: "Write one within 48 hours." });
    });

    const whole = await call(stack, "GET", pdfPath(), { token: org.owner.token });
    expect(whole.status).toBe(200);
    const wholeUrl = new URL(whole.body.url as string);
    expect(wholeUrl.origin).toBe(stack.baseUrl);
    expect(wholeUrl.pathname).toMatch(/^\/v1\/exports\/[0-9a-f-]{36}\/download$/);
    const wholePdf = await download(wholeUrl.toString());
    expect(wholePdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");

    // One page with its sub-page, then that page alone: fewer pages each time, named after the page.
    const withChildren = await call(stack, "GET", pdfPath("?page=start"), { token: org.owner.token });
    expect(withChildren.status).toBe(200);
    const only = await call(stack, "GET", pdfPath("?page=start&only=true"), { token: org.owner.token });
    expect(only.status).toBe(200);
    const response = await fetch(only.body.url as string);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="start\.pdf"/);
    const onlyPdf = Buffer.from(await response.arrayBuffer());
    const counts = [pdfPageCount(wholePdf), pdfPageCount(await download(withChildren.body.url as string)), pdfPageCount(onlyPdf)];
    expect(counts[2]).toBeGreaterThan(0);
    expect(counts[0]).toBeGreaterThan(counts[1]!);
    expect(counts[1]).toBeGreaterThan(counts[2]!);
  });

  it("needs read access: a reader may export; another organization, an unknown space or page get 404; bad query 400", async () => {
    const reader = await createMember(stack, org, { role: "read" });
    const read = await call(stack, "GET", pdfPath(), { token: reader.token });
    expect(read.status).toBe(200);
    expect((await download(read.body.url as string)).subarray(0, 5).toString("latin1")).toBe("%PDF-");

    const other = await createOrganization(stack);
    const foreign = await call(stack, "GET", pdfPath(), { token: other.owner.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toBe("Space not found");
    expect((await call(stack, "GET", "/v1/spaces/00000000-0000-4000-8000-000000000000/pdf", { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", pdfPath("?page=nope"), { token: org.owner.token })).status).toBe(404);
    expect((await call(stack, "GET", pdfPath())).status).toBe(401);

    const invalid = await call(stack, "GET", pdfPath("?only=yes"), { token: org.owner.token });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toBe("only: must be true or false");
  });

  it("answers 412 for a space over the exporter's 2,000 pages, and still exports one of its pages", async () => {
    await commitDraftWork(editing, { userId: org.owner.userId, spaceId }, (draftId, caller) =>
      editing.applyPageOperations({
        caller,
        draftId,
        operations: Array.from({ length: 2_000 }, (_, index) => ({ create: CreatePageInput.fromPartial({ pageId: `p${index}`, title: `Page ${index}` }) })),
      }),
    );
    const refused = await call(stack, "GET", pdfPath(), { token: org.owner.token });
    expect(refused.status).toBe(412);
    expect(refused.body.error.message).toMatch(/^content: 2001 pages to export, a PDF holds at most 2,000/);
    const page = await call(stack, "GET", pdfPath("?page=p1999"), { token: org.owner.token });
    expect(page.status).toBe(200);
  });
});
