import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { JsonDocument } from "@imprint/document";
import type { CallerInput } from "../../access/index.js";
import { signUrl, evaluateDocument, openContent, type ContentRefInput, storeBlob } from "../../revisions/index.js";
import { Export, MAX_EXPORT_PDF_BYTES, pdfFileName, requireExportablePageCount, requireImageBytesWithinLimit } from "../domain/entities.js";
import { selectPages } from "../domain/page-selection.js";
import { renderPdf } from "../domain/pdf/render-pdf.js";
import type { RevisionDeps } from "../../deps.js";

export interface ExportPdfInput {
  caller: CallerInput | undefined;
  ref: ContentRefInput | undefined;
  /** Empty: the whole content. */
  pageId: string;
  /** With a page: that page without its sub-pages. */
  only: boolean;
}

export interface ExportedPdf {
  url: string;
  expiresAt: Date;
  size: number;
}

/**
 * Renders content (the reference's revision: a space's current one, a change request's) to a
 * PDF, stores it in the blob store with an `exports` row, and answers a signed download URL that
 * works for an hour. View rights are checked by openContent, like every read. The work is
 * bounded: at most 2,000 pages, 100 MiB of images read, and a PDF of at most 60 MiB.
 */
export async function exportPdf(em: EntityManager, input: ExportPdfInput, deps: RevisionDeps): Promise<ExportedPdf> {
  const { access, revision, view } = await openContent(em, deps, input);
  const pages = selectPages(await view.index(), { pageId: input.pageId, only: input.only });
  requireExportablePageCount(pages.length);

  let imageBytes = 0;
  const pdf = await renderPdf(
    {
      title: input.pageId ? (pages[0]?.title ?? access.space.title) : access.space.title,
      pages,
      documents: async (batch) => {
        const records = batch.map((page) => page.record);
        const bodies = await view.bodies(
          records.flatMap((record) => (record.bodyId ? [record.bodyId] : [])),
          { keep: false },
        );
        const documents = new Map<string, JsonDocument>();
        for (const record of records) {
          const body = record.bodyId ? bodies.get(record.bodyId) : undefined;
          if (!body) continue;
          // Readers of a PDF see what readers of the page see: variables replaced by their values.
          documents.set(record.pageId, evaluateDocument(JSON.parse(body.document) as JsonDocument, { space: revision.variables, page: record.variables }));
        }
        return documents;
      },
      fileImage: async (fileId) => {
        const file = await view.file(fileId);
        if (!file) return undefined;
        if (!file.contentType.startsWith("image/")) return { name: file.name };
        imageBytes += file.size;
        requireImageBytesWithinLimit(imageBytes);
        const bytes = await deps.blobStore.get(file.blobKey);
        return bytes ? { name: file.name, bytes } : { name: file.name };
      },
    },
    { createdAt: deps.clock(), maxBytes: MAX_EXPORT_PDF_BYTES },
  );

  const now = deps.clock();
  const id = randomUUID();
  const { url, expires } = signUrl(deps.signer, { kind: "export", path: `/v1/exports/${id}/download`, fields: [id] }, now);
  const expiresAt = new Date(expires * 1000);
  const name = pdfFileName(input.pageId ? (pages[0]?.record.slug ?? "") : access.space.title);
  await em.transactional(async (tx) => {
    const { key, size } = await storeBlob(tx, deps, pdf);
    tx.create(Export, { id, spaceId: access.space.id, organizationId: access.space.organizationId, blobKey: key, name, size, createdAt: now, expiresAt });
  });
  return { url, expiresAt, size: pdf.byteLength };
}
