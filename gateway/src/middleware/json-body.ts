import { AppError, jsonNestingDepth, jsonTooDeep, MAX_JSON_DEPTH, readBoundedBody } from "@imprint/runtime/core";
import type { GatewayContext } from "../context.js";
import { findUnstorableText } from "../validation.js";

function carriesBody(ctx: GatewayContext): boolean {
  const length = ctx.get("Content-Length");
  return ctx.get("Transfer-Encoding") !== "" || (length !== "" && length !== "0");
}

function isJsonType(contentType: string): boolean {
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === "application/json" || (mediaType.startsWith("application/") && mediaType.endsWith("+json"));
}

/**
 * 415 for a compressed body: bodies are read as sent, never inflated (a small gzip body could
 * inflate past any bound), so a client learns to send it uncompressed rather than reading 400.
 */
function refuseContentEncoding(ctx: GatewayContext): void {
  const encoding = ctx.get("Content-Encoding").trim().toLowerCase();
  if (encoding !== "" && encoding !== "identity") {
    throw new AppError("unsupported_media_type", `Content-Encoding ${encoding.slice(0, 40)} is not accepted: send the request body uncompressed`);
  }
}

/**
 * Reads a JSON request body: undefined when none is sent, 415 for any other media type or for a
 * compressed body, 413 past
 * `limitBytes` (checked on Content-Length first, then while streaming), 400 for malformed JSON,
 * JSON nested deeper than MAX_JSON_DEPTH or text no store can hold.
 */
export async function readJsonBody(ctx: GatewayContext, limitBytes: number, onRaw?: (raw: Buffer) => void): Promise<unknown> {
  if (!carriesBody(ctx)) return undefined;
  if (!isJsonType(ctx.get("Content-Type"))) {
    throw new AppError("unsupported_media_type", "Request bodies must be JSON: send Content-Type: application/json");
  }
  refuseContentEncoding(ctx);
  const raw = await readRaw(ctx, limitBytes, " (the gateway's BODY_LIMIT_BYTES setting)");
  onRaw?.(raw);
  if (raw.length === 0) return undefined;
  const text = raw.toString("utf8");
  // Bounded before anything walks it: every route's body, free-form objects (customizations,
  // configurations, documents, schemas) included, nests at most MAX_JSON_DEPTH levels.
  if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw AppError.invalidArgument(jsonTooDeep("body"));
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw AppError.invalidArgument("Malformed JSON body");
  }
  // JSON escapes (\u0000, \ud800) make text no store can hold; refused as the body is read, even
  // where a route reads the body without a schema.
  const unstorable = findUnstorableText(body, "body");
  if (unstorable) throw AppError.invalidArgument(unstorable);
  return body;
}

/**
 * Reads an HTML form post (application/x-www-form-urlencoded: what an identity provider's page
 * posts to the ACS URL): its fields, 415 for any other media type or a compressed body, 413 past `limitBytes`.
 */
export async function readFormBody(ctx: GatewayContext, limitBytes: number): Promise<URLSearchParams> {
  const mediaType = ctx.get("Content-Type").split(";", 1)[0]!.trim().toLowerCase();
  if (mediaType !== "application/x-www-form-urlencoded") {
    throw new AppError("unsupported_media_type", "This endpoint takes an HTML form post: send Content-Type: application/x-www-form-urlencoded");
  }
  refuseContentEncoding(ctx);
  return new URLSearchParams((await readRaw(ctx, limitBytes)).toString("utf8"));
}

/**
 * Reads a request body as it is, whatever its media type (what an integration's public endpoint
 * passes to its script): empty when none is sent, 413 past `limitBytes`.
 */
export async function readBodyBytes(ctx: GatewayContext, limitBytes: number): Promise<Buffer> {
  if (!carriesBody(ctx)) return Buffer.alloc(0);
  return readRaw(ctx, limitBytes);
}

/**
 * The body within `limitBytes` (declared or streamed), else 413: the rest of a refused body is read
 * and discarded (bounded) so the client, still sending, reads the 413 instead of a reset.
 */
async function readRaw(ctx: GatewayContext, limitBytes: number, limitHint = ""): Promise<Buffer> {
  let raw: Buffer | null;
  try {
    raw = await readBoundedBody(ctx.req, ctx.res, limitBytes);
  } catch (error) {
    throw new AppError("invalid_argument", "The request body could not be read", { cause: error });
  }
  if (raw === null) throw new AppError("payload_too_large", `Request body exceeds the limit of ${limitBytes} bytes${limitHint}`);
  return raw;
}
