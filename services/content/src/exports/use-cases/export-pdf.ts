import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { JsonDocument } from "@imprint/document";
import type { CallerInput } from "../../access/index.js";
import { signUrl } from "../../revisions/domain/files/signed-url.js";
import { evaluateDocument } from "../../revisions/domain/markdown/evaluate.js";
import { openContent, type ContentRefInput } from "../../revisions/use-cases/shared/open-content.js";
import { storeBlob } from "../../revisions/use-cases/upload-file.js";
import { Export } from "../domain/entities.js";
import { selectPages } from "../domain/page-selection.js";
import { renderPdf } from "../domain/pdf/render-pdf.js";
import type { RevisionDeps } from "../../deps.js";

/** Pages one PDF may hold. */
export const MAX_EXPORT_PAGES = 2_000;
/** Image bytes one PDF may read from the blob store. */
export const MAX_EXPORT_IMAGE_BYTES = 100 * 1024 * 1024;
/** Size of a PDF that can still be downloaded: it travels in one gRPC message (64 MiB at most). */
export const MAX_EXPORT_PDF_BYTES = 60 * 1024 * 1024;

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

const MIB = 1024 * 1024;
/** Characters file systems or Content-Disposition refuse, and control characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_FILE_NAME = /[\u0000-\u001f\u007f/\\:*?"<>|]+/g;

/** `<stem>.pdf`, the stem made safe for a download's file name ("export" when nothing is left). */
export function pdfFileName(stem: string): string {
  const safe = stem.replace(UNSAFE_IN_FILE_NAME, "-").replace(/\s+/g, " ").trim().slice(0, 200).trim().replace(/^\.+/, "");
  return `${safe || "export"}.pdf`;
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
  if (pages.length > MAX_EXPORT_PAGES) {
    throw new AppError(
      "failed_precondition",
      `content: ${pages.length} pages to export, a PDF holds at most ${MAX_EXPORT_PAGES.toLocaleString("en-US")}; export a page and its sub-pages instead`,
    );
  }

  let imageBytes = 0;
  const pdf = await renderPdf(
    {
      title: input.pageId ? (pages[0]?.title ?? access.space.title) : access.space.title,
      pages,
      documents: async (batch) => {
        const records = batch.map((page) => page.record);
        const bodies = await view.bodies(records.flatMap((record) => (record.bodyId ? [record.bodyId] : [])));
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
        if (imageBytes > MAX_EXPORT_IMAGE_BYTES) {
          throw new AppError("failed_precondition", `content: its images exceed the ${MAX_EXPORT_IMAGE_BYTES / MIB} MiB one PDF may hold; export fewer pages`);
        }
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
