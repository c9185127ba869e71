import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import type { PromiseClient } from "@imprint/runtime";
import { testClient } from "@imprint/runtime/testing";
import { commitEdits, editingClient, type EditingClient } from "./support/editing.js";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { call } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * PDF exports through the gateway: the signed download route end to end (the URL comes from the
 * content service's ExportService for a space's content), and the validation of
 * getChangeRequestPDF.
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
  await commitEdits(editing, { userId: org.owner.userId, spaceId }, (draft) => draft.createPage({ pageId: "start", title: "Start", markdown: "# On call\n\nPage the **primary** first." }));
});

const notInOpenApi = "Imprint's signed export download; GitBook serves PDFs from its own storage";

async function exportUrl(): Promise<URL> {
  const exported = await exportsClient.exportPdf({ caller: { userId: org.owner.userId, tokenId: "" }, ref: { spaceId, changeRequestId: "", revisionId: "" }, pageId: "", only: false });
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
