import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ContentRef, JsonDocument } from "@imprint/document";
import { documentToHtml } from "@imprint/document/html";
import type { Logger } from "@imprint/runtime/core";

/**
 * `POST /_app/render`: a page's JSON document rendered to HTML by the reader's own renderer
 * (`@imprint/document`'s documentToHtml, the same classes the reader's stylesheet styles), for the
 * app's space pages. Only for a signed-in person: the request's cookie is checked with the API's
 * `GET /v1/auth/session` (a confirmed session is trusted for a short while). The body is
 * `{document, pages?: {[pageId]: url}, files?: {[fileId]: url}}`; the answer `{html}`.
 */

export interface RenderOptions {
  /** The API's origin (the gateway), asked `GET /v1/auth/session`. */
  apiUrl: string;
  bodyLimitBytes: number;
  sessionCacheMs: number;
  logger: Logger;
}

/** At most this many confirmed sessions are remembered (the oldest forgotten first). */
const SESSION_CACHE_SIZE = 1000;

function answerError(response: ServerResponse, status: number, message: string): void {
  response.statusCode = status;
  response.setHeader("Content-Type", "application/json; charset=utf-8");
  response.setHeader("Cache-Control", "no-store");
  response.end(JSON.stringify({ error: { code: status, message } }));
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request's body, refused (413) beyond `limit` bytes, whether announced or streamed. What is
 * refused is read to its end and dropped (never kept), so the connection stays usable for the
 * next request rather than being cut mid-upload.
 */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const announced = Number(request.headers["content-length"]);
  let tooLarge = Number.isFinite(announced) && announced > limit;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  }
  if (tooLarge) throw new RequestError(413, `The document is larger than ${limit} bytes.`);
  return Buffer.concat(chunks);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The links a document may point at, as the client knows them (`{id: url}`), strings only. */
function links(value: unknown, field: string): Map<string, string> {
  if (value === undefined) return new Map();
  if (!isRecord(value)) throw new RequestError(400, `${field} must be an object of ids to URLs.`);
  const map = new Map<string, string>();
  for (const [key, url] of Object.entries(value)) {
    if (typeof url !== "string") throw new RequestError(400, `${field}.${key} must be a string.`);
    map.set(key, url);
  }
  return map;
}

/** An app-relative or http(s) URL; anything else (javascript:, data:) is not linked. */
function safeUrl(url: string): string | null {
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" || parsed.protocol === "mailto:" ? url : null;
  } catch {
    return null;
  }
}

/**
 * The renderer's only inline styles (a table column's alignment, TABLE_ALIGNMENT_STYLES) as a
 * `data-align` attribute the app's stylesheet aligns: the app's Content-Security-Policy allows no
 * inline style. Matched inside cell tags only (text never holds an unescaped `<`).
 */
function withoutInlineStyles(html: string): string {
  return html.replace(/(<t[hd]\b[^>]*?) style="text-align: (center|right)"/g, '$1 data-align="$2"');
}

export function createRenderHandler(options: RenderOptions) {
  const confirmed = new Map<string, number>();

  /** Whether the cookie is a live session, asked to the API (answers remembered for sessionCacheMs). */
  async function signedIn(cookie: string | undefined): Promise<boolean> {
    if (!cookie) return false;
    const key = createHash("sha256").update(cookie).digest("base64url");
    const until = confirmed.get(key);
    if (until !== undefined && until > Date.now()) return true;
    confirmed.delete(key);
    let status: number;
    try {
      const answer = await fetch(new URL("/v1/auth/session", options.apiUrl), {
        headers: { cookie, accept: "application/json" },
        signal: AbortSignal.timeout(5000),
      });
      status = answer.status;
      await answer.body?.cancel();
    } catch (error) {
      options.logger.warn("the API could not be asked about a session", { error: String(error) });
      throw new RequestError(503, "Imprint could not check your session. Try again in a moment.");
    }
    if (status === 401) return false;
    if (status !== 200) throw new RequestError(503, "Imprint could not check your session. Try again in a moment.");
    if (confirmed.size >= SESSION_CACHE_SIZE) confirmed.delete(confirmed.keys().next().value!);
    confirmed.set(key, Date.now() + options.sessionCacheMs);
    return true;
  }

  return async function render(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      if (request.method !== "POST") {
        response.setHeader("Allow", "POST");
        throw new RequestError(405, "A document is rendered with POST.");
      }
      if (!(await signedIn(request.headers.cookie))) throw new RequestError(401, "Sign in to see this page.");
      if (!String(request.headers["content-type"] ?? "").startsWith("application/json")) throw new RequestError(415, "Send the document as application/json.");
      const raw = await readBody(request, options.bodyLimitBytes);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        throw new RequestError(400, "The body is not JSON.");
      }
      if (!isRecord(body) || !isRecord(body.document) || body.document.object !== "document" || !Array.isArray(body.document.nodes))
        throw new RequestError(400, 'document must be GitBook\'s JSON document: {"object": "document", "nodes": [...]}.');
      const pages = links(body.pages, "pages");
      const files = links(body.files, "files");
      const resolveRef = (ref: ContentRef): string | null => {
        if (ref.kind === "url") return safeUrl(ref.url);
        if (ref.kind === "page") return safeUrl(pages.get(ref.page) ?? "") ?? null;
        if (ref.kind === "file") return safeUrl(files.get(ref.file) ?? "") ?? null;
        const page = ref.page ? pages.get(ref.page) : "";
        return page === undefined ? null : `${page}#${encodeURIComponent(ref.anchor)}`;
      };
      let html: string;
      try {
        // Conditional blocks show (an editor sees every block), as the reader's preview does.
        html = documentToHtml(body.document as unknown as JsonDocument, { resolveRef, showIf: () => true }).html;
      } catch (error) {
        throw new RequestError(400, `The document could not be rendered: ${error instanceof Error ? error.message : String(error)}`);
      }
      response.statusCode = 200;
      response.setHeader("Content-Type", "application/json; charset=utf-8");
      response.setHeader("Cache-Control", "no-store");
      response.end(JSON.stringify({ html: withoutInlineStyles(html) }));
    } catch (error) {
      if (error instanceof RequestError) return answerError(response, error.status, error.message);
      options.logger.error("a render failed", { error: String(error) });
      answerError(response, 500, "The page could not be rendered.");
    }
  };
}
