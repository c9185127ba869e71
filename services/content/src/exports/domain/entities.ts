import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

export const EXPORT_NAME_MAX = 255;
/** Pages one PDF may hold. */
export const MAX_EXPORT_PAGES = 2_000;
/** Image bytes one PDF may read from the blob store. */
export const MAX_EXPORT_IMAGE_BYTES = 100 * 1024 * 1024;
/** Size of a PDF that can still be downloaded: it travels in one gRPC message (64 MiB at most). */
export const MAX_EXPORT_PDF_BYTES = 60 * 1024 * 1024;

/**
 * A rendered export (a PDF) kept until its download URL expires: the bytes live in the blob store
 * under `blobKey`, the row says whose they are and until when they may be read.
 */
export const ExportSchema = defineEntity({
  name: "Export",
  tableName: "exports",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    spaceId: p.uuid(),
    organizationId: p.uuid(),
    /** SHA-256 of the bytes: the blob store key. */
    blobKey: p.string().length(64),
    /** File name offered to the browser (`<space title or page slug>.pdf`). */
    name: p.string().length(EXPORT_NAME_MAX),
    size: p.integer(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
  indexes: [
    { properties: ["expiresAt"], name: "exports_expires_at_index" },
    { properties: ["blobKey"], name: "exports_blob_key_index" },
  ],
});
export class Export extends ExportSchema.class {
  /** Whether its download URL still works at `now` (the sweep removes it some time after). */
  isReadableAt(now: Date): boolean {
    return this.expiresAt.getTime() > now.getTime();
  }
}
ExportSchema.setClass(Export);

export const exportEntities = [Export];

const MIB = 1024 * 1024;
/** Characters file systems or Content-Disposition refuse, and control characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_FILE_NAME = /[\u0000-\u001f\u007f/\\:*?"<>|]+/g;

/** `<stem>.pdf`, the stem made safe for a download's file name ("export" when nothing is left). */
export function pdfFileName(stem: string): string {
  const safe = stem.replace(UNSAFE_IN_FILE_NAME, "-").replace(/\s+/g, " ").trim().slice(0, 200).trim().replace(/^\.+/, "");
  return `${safe || "export"}.pdf`;
}

/** A PDF holds at most MAX_EXPORT_PAGES pages; more is failed_precondition, suggesting a page and its sub-pages. */
export function requireExportablePageCount(count: number): void {
  if (count > MAX_EXPORT_PAGES) {
    throw new AppError(
      "failed_precondition",
      `content: ${count} pages to export, a PDF holds at most ${MAX_EXPORT_PAGES.toLocaleString("en-US")}; export a page and its sub-pages instead`,
    );
  }
}

/** The images one PDF reads from the blob store add up to at most MAX_EXPORT_IMAGE_BYTES. */
export function requireImageBytesWithinLimit(total: number): void {
  if (total > MAX_EXPORT_IMAGE_BYTES) {
    throw new AppError("failed_precondition", `content: its images exceed the ${MAX_EXPORT_IMAGE_BYTES / MIB} MiB one PDF may hold; export fewer pages`);
  }
}
