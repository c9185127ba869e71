import type { SafeFetchPolicy } from "@imprint/runtime";
import { fetchSource } from "../jobs/fetch-source.js";
import { parseSpecDocument } from "../jobs/parse-document.js";

/** A page waits for an external spec at most this long (fetch, then validation), and takes at most this much of it. */
const EXTERNAL_LIMITS = { timeoutMs: 5_000, maxBytes: 5 * 1024 * 1024, dereferenceTimeoutMs: 5_000 };

/**
 * An OpenAPI document no stored specification holds, fetched from `url` through the fetch guard
 * (as processing fetches sources: public targets only unless the deployment allows private ones,
 * bounded in size and time, every redirect checked) and validated as a stored one would be; null
 * when it cannot be fetched or is no valid OpenAPI or Swagger document. Nothing is kept.
 */
export async function fetchExternalOpenApiDocument(url: string, policy: SafeFetchPolicy): Promise<Record<string, unknown> | null> {
  if (!/^https?:\/\//i.test(url)) return null;
  const fetched = await fetchSource(url, policy, EXTERNAL_LIMITS, new AbortController().signal);
  if (!("bytes" in fetched)) return null;
  return parseOpenApiFile(fetched.bytes);
}

/** A stored file's bytes as an OpenAPI document (JSON or YAML, validated, in the same bounds); null when it is none. */
export async function parseOpenApiFile(bytes: Buffer): Promise<Record<string, unknown> | null> {
  if (bytes.length > EXTERNAL_LIMITS.maxBytes) return null;
  const parsed = await parseSpecDocument(bytes, EXTERNAL_LIMITS);
  return "document" in parsed ? parsed.document : null;
}
