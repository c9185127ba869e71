import { AppError } from "@imprint/runtime";

/** Bytes one file may hold. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[a-z0-9-]+=[^;]{1,100}){0,4}$/i;

/**
 * A file's name, type and size as stored: the name trimmed, 1 to 255 characters without path
 * separators or control characters; the type a MIME type in lower case (octet-stream when
 * none); at most MAX_FILE_BYTES (payload_too_large past it).
 */
export function validateFile(input: { name: string; contentType: string; size: number }): { name: string; contentType: string } {
  const name = input.name.trim();
  // eslint-disable-next-line no-control-regex
  if (name.length < 1 || name.length > 255 || /[/\\\u0000-\u001f]/.test(name)) {
    throw AppError.invalidArgument('name: must be 1 to 255 characters, without "/", "\\" or control characters');
  }
  const contentType = input.contentType.trim().toLowerCase() || "application/octet-stream";
  if (!CONTENT_TYPE.test(contentType)) throw AppError.invalidArgument("content_type: must be a MIME type such as image/png");
  if (input.size > MAX_FILE_BYTES) throw new AppError("payload_too_large", "content: must be at most 50 MiB");
  return { name, contentType };
}
