import { describe, expect, it } from "vitest";
import { AppError } from "@imprint/runtime";
import { markdownToDocument } from "@imprint/document";
import { renderPdf, type ExportPage } from "../src/exports/domain/pdf/render-pdf.js";

/** The renderer's own bound, which the gRPC tests cannot reach without 60 MiB of content. */
describe("renderPdf", () => {
  const pages: ExportPage[] = Array.from({ length: 40 }, (_, index) => ({
    pageId: `p${index}`,
    type: "document",
    title: `Page ${index}`,
    description: "",
    href: null,
    depth: 0,
  }));
  const body = markdownToDocument(Array.from({ length: 30 }, (_, index) => `Paragraph ${index} of a page that fills some space.`).join("\n\n"));
  const source = {
    title: "Bound",
    pages,
    documents: async (batch: readonly ExportPage[]) => new Map(batch.map((page) => [page.pageId, body])),
    fileImage: async () => undefined,
  };

  it("renders within the size bound, and stops with failed_precondition as soon as the output passes it", async () => {
    const pdf = await renderPdf(source, { createdAt: new Date(), maxBytes: 10 * 1024 * 1024 });
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");

    const refused = await renderPdf(source, { createdAt: new Date(), maxBytes: Math.floor(pdf.length / 4) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "failed_precondition", message: expect.stringMatching(/^content: the PDF would be larger than/) as unknown });
  });
});
