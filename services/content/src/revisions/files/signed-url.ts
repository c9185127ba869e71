import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@imprint/runtime";

/**
 * Download URLs of files are capabilities: anyone holding one may fetch the bytes until it
 * expires, without a token (so they work in <img> tags and for integrations). The URL names the
 * file and the stored file version it was issued for, and carries an expiry and an HMAC-SHA256
 * of the three under the service's secret.
 *
 * Expiries are rounded up to a whole window, so the same file read twice within a window gets the
 * same URL (cacheable answers) and a URL stays valid for at least `ttlSeconds`.
 */
export const FILE_URL_TTL_SECONDS = 60 * 60;
const EXPIRY_WINDOW_SECONDS = 5 * 60;

export interface FileUrlSigner {
  secret: string;
  /** Public base URL of the API, without a trailing slash. */
  publicUrl: string;
  ttlSeconds?: number;
}

function signature(secret: string, fileId: string, version: string, expires: number): string {
  return createHmac("sha256", secret).update(`${fileId}\n${version}\n${expires}`).digest("base64url");
}

export function signedDownloadUrl(signer: FileUrlSigner, fileId: string, version: string, now: Date): string {
  const earliest = Math.floor(now.getTime() / 1000) + (signer.ttlSeconds ?? FILE_URL_TTL_SECONDS);
  const expires = Math.ceil(earliest / EXPIRY_WINDOW_SECONDS) * EXPIRY_WINDOW_SECONDS;
  const query = new URLSearchParams({ version, expires: String(expires), signature: signature(signer.secret, fileId, version, expires) });
  return `${signer.publicUrl}/v1/files/${encodeURIComponent(fileId)}/download?${query.toString()}`;
}

/**
 * Checks a download URL's parts: a signature that does not match is refused (permission_denied);
 * a valid but expired one answers not_found, as the link no longer leads anywhere.
 */
export function verifyDownload(signer: FileUrlSigner, input: { fileId: string; version: string; expires: number; signature: string }, now: Date): void {
  const expected = Buffer.from(signature(signer.secret, input.fileId, input.version, input.expires));
  const given = Buffer.from(input.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw AppError.permissionDenied("signature: does not match this download URL");
  }
  if (input.expires * 1000 <= now.getTime()) throw AppError.notFound("File");
}
