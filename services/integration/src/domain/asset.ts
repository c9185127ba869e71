import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/** An image an integration published: its icon or a preview. Public, immutable (a new publication adds new ones). */
export const IntegrationAssetSchema = defineEntity({
  name: "IntegrationAsset",
  tableName: "integration_assets",
  properties: {
    id: p.uuid().primary(),
    integrationId: p.uuid().index(),
    contentType: p.string().length(32),
    content: p.blob(),
    createdAt: p.datetime(),
  },
});
export class IntegrationAsset extends IntegrationAssetSchema.class {}
IntegrationAssetSchema.setClass(IntegrationAsset);

/** GitBook's CLI sends icons up to 250 KiB and previews up to 1 MiB. */
export const ICON_MAX_BYTES = 250 * 1024;
export const PREVIEW_MAX_BYTES = 1024 * 1024;

/** The image's media type, read from its first bytes; refused when it is not an image a browser shows safely. */
export function imageType(field: string, bytes: Uint8Array, maxBytes: number): string {
  if (bytes.length === 0) throw AppError.invalidArgument(`${field}: must not be empty`);
  if (bytes.length > maxBytes) throw AppError.invalidArgument(`${field}: must be at most ${maxBytes} bytes`);
  const head = Buffer.from(bytes.subarray(0, 12));
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.subarray(0, 6).toString("latin1") === "GIF87a" || head.subarray(0, 6).toString("latin1") === "GIF89a") return "image/gif";
  if (head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  // SVG can carry script: not accepted (served from the API's origin).
  throw AppError.invalidArgument(`${field}: must be a PNG, JPEG, GIF or WebP image`);
}
