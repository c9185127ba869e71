import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@imprint/runtime";

/**
 * Download URLs of files and exports are capabilities: anyone holding one may fetch the bytes
 * until it expires, without a token (so they work in <img> tags, for integrations and for
 * browsers following a link). The URL names what it serves and carries an expiry and an
 * HMAC-SHA256 of both under the service's secret.
 *
 * Each kind of URL is signed under its own key, derived from the secret and the kind's name, so a
 * signature issued for a file never validates as an export's (or the reverse), whatever ids the
 * two happen to carry.
 *
 * Expiries are rounded up to a whole window, so the same file read twice within a window gets the
 * same URL (cacheable answers) and a URL stays valid for at least `ttlSeconds`.
 */
export const SIGNED_URL_TTL_SECONDS = 60 * 60;
export const FILE_URL_TTL_SECONDS = SIGNED_URL_TTL_SECONDS;
const EXPIRY_WINDOW_SECONDS = 5 * 60;

export interface UrlSigner {
  secret: string;
  /** Public base URL of the API, without a trailing slash. */
  publicUrl: string;
  ttlSeconds?: number;
}
export type FileUrlSigner = UrlSigner;

/** What a signed URL serves; also the name its signing key is derived from. */
export type SignedUrlKind = "file" | "export";

/** A signed URL's target: the gateway path, and the values the signature covers (ids, versions). */
export interface SignedTarget {
  kind: SignedUrlKind;
  path: string;
  /** Signed, in this order; those the gateway needs beyond the path travel in `query`. */
  fields: readonly string[];
  query?: Record<string, string>;
}

function signature(secret: string, kind: SignedUrlKind, fields: readonly string[], expires: number): string {
  const key = createHmac("sha256", secret).update(`imprint signed URL: ${kind}`).digest();
  // JSON: an unambiguous encoding of the list, whatever characters the fields hold.
  return createHmac("sha256", key)
    .update(JSON.stringify([...fields, expires]))
    .digest("base64url");
}

/** The URL and its expiry (Unix seconds), at least `ttlSeconds` ahead. */
export function signUrl(signer: UrlSigner, target: SignedTarget, now: Date): { url: string; expires: number } {
  const earliest = Math.floor(now.getTime() / 1000) + (signer.ttlSeconds ?? SIGNED_URL_TTL_SECONDS);
  const expires = Math.ceil(earliest / EXPIRY_WINDOW_SECONDS) * EXPIRY_WINDOW_SECONDS;
  const query = new URLSearchParams({ ...target.query, expires: String(expires), signature: signature(signer.secret, target.kind, target.fields, expires) });
  return { url: `${signer.publicUrl}${target.path}?${query.toString()}`, expires };
}

/**
 * Checks a signed URL's parts: a signature that does not match is refused (permission_denied);
 * a valid but expired one answers not_found (`what`), as the link no longer leads anywhere.
 */
export function verifySignedUrl(
  signer: UrlSigner,
  input: { kind: SignedUrlKind; fields: readonly string[]; expires: number; signature: string; what: string },
  now: Date,
): void {
  const expected = Buffer.from(signature(signer.secret, input.kind, input.fields, input.expires));
  const given = Buffer.from(input.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw AppError.permissionDenied("signature: does not match this download URL");
  }
  if (input.expires * 1000 <= now.getTime()) throw AppError.notFound(input.what);
}

/** A file's download URL: names the file and the stored file version it was issued for. */
export function signedDownloadUrl(signer: FileUrlSigner, fileId: string, version: string, now: Date): string {
  return signUrl(signer, { kind: "file", path: `/v1/files/${encodeURIComponent(fileId)}/download`, fields: [fileId, version], query: { version } }, now).url;
}

export function verifyDownload(signer: FileUrlSigner, input: { fileId: string; version: string; expires: number; signature: string }, now: Date): void {
  verifySignedUrl(signer, { kind: "file", fields: [input.fileId, input.version], expires: input.expires, signature: input.signature, what: "File" }, now);
}
