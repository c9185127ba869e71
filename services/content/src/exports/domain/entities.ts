import { defineEntity, p } from "@mikro-orm/postgresql";

export const EXPORT_NAME_MAX = 255;

/**
 * A rendered export (a PDF) kept until its download URL expires: the bytes live in the blob store
 * under `blobKey`, the row says whose they are and until when they may be read.
 */
export const ExportSchema = defineEntity({
  name: "Export",
  tableName: "exports",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
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
export class Export extends ExportSchema.class {}
ExportSchema.setClass(Export);

export const exportEntities = [Export];
