import type { IncomingMessage, ServerResponse } from "node:http";
import { readerKeptLookups, type BudgetedCache } from "@imprint/runtime/core";
import type { ViewedPage, ViewedRequest, ViewRecorder } from "./viewed.js";

/** A whole answer kept for the requests that will get exactly it again. */
export interface KeptAnswer {
  /** The answer's headers, lower-case names (never a cookie: answers that set one are not kept). */
  headers: Record<string, string | string[]>;
  etag: string;
  body: Buffer;
  /** The page view each answer counts as (HTML pages); null for the others (markdown). */
  view: ViewedPage | null;
  storedAt: number;
  /** Never replayed after this (ms since the epoch): the visitor token it was read with expires. */
  until: number;
}

/** imprint_reader_kept_answer_lookups_total: the kept-answer hit ratio, over requests whose answer may be kept. */
const keptHits = readerKeptLookups.child("hit");
const keptMisses = readerKeptLookups.child("miss");

/** Headers an answer to If-None-Match does not carry (Koa drops them from a 304 too). */
const BODY_HEADERS = new Set(["content-type", "content-length"]);

/**
 * The reader's front: whole answers of public sites' pages, replayed without Koa, without finding
 * the site, the space and the page again and without a span (answerBeforeTracing), which cost
 * more than the answer itself. Kept: GET answers (200) to requests without a query string whose
 * Accept takes HTML (or says nothing), keyed by everything else they were read from (host, forwarded
 * host and scheme when proxies are trusted, path, cookies: a visitor's token and claims are in them),
 * of public sites and of visitor-auth sites read with a token of the site's key (until it expires;
 * the caller says which: Visit.keepableUntil). They hold only while the reader hears events: `clear`
 * on every event and reconnection, and each for at most `freshForMs()` (0 while events do not flow:
 * nothing is kept then).
 */
export class KeptAnswers {
  /** Bumped by every `clear`: an answer read across one may predate the change, and is not kept. */
  private generation = 0;
  /** The generation each request in flight started in. */
  private readonly started = new WeakMap<IncomingMessage, number>();
  /** What `find` answered each request in flight (null: nothing kept for it). */
  private readonly found = new WeakMap<IncomingMessage, KeptAnswer | null>();

  constructor(
    private readonly answers: BudgetedCache<KeptAnswer>,
    private readonly options: { trustProxy: boolean; freshForMs: () => number; now: () => number },
  ) {}

  /** The key of a request whose answer may be kept; undefined for any other. */
  keyOf(request: IncomingMessage): string | undefined {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const url = request.url ?? "";
    if (url.includes("?")) return undefined;
    const accept = request.headers.accept;
    if (accept !== undefined && !accept.includes("text/html")) return undefined;
    const { headers } = request;
    const forwarded = this.options.trustProxy ? `${String(headers["x-forwarded-host"] ?? "")}\n${String(headers["x-forwarded-proto"] ?? "")}` : "\n";
    return `${String(headers.host ?? "").toLowerCase()}\n${forwarded}\n${url}\n${String(headers.cookie ?? "")}`;
  }

  /** The kept answer to `request`, while it holds. */
  find(request: IncomingMessage): KeptAnswer | undefined {
    // Asked twice per request (whether to trace it, then to serve it): looked up once.
    const found = this.found.get(request);
    if (found !== undefined) return found ?? undefined;
    const kept = this.lookUp(request);
    this.found.set(request, kept ?? null);
    return kept;
  }

  private lookUp(request: IncomingMessage): KeptAnswer | undefined {
    const key = this.keyOf(request);
    if (key === undefined) return undefined;
    const kept = this.answers.get(key);
    if (!kept) {
      keptMisses.inc();
      return undefined;
    }
    const now = this.options.now();
    if (now - kept.storedAt >= this.options.freshForMs() || now >= kept.until) {
      this.answers.delete(key);
      keptMisses.inc();
      return undefined;
    }
    keptHits.inc();
    return kept;
  }

  /** Keeps the answer just given to `request` (a GET answered 200), if such requests may have it kept. */
  keep(request: IncomingMessage, answer: Omit<KeptAnswer, "storedAt">): void {
    if (answer.until <= this.options.now()) return;
    const key = this.keyOf(request);
    if (key === undefined || request.method !== "GET" || this.options.freshForMs() <= 0 || "set-cookie" in answer.headers) return;
    if (this.started.get(request) !== this.generation) return;
    this.answers.set(key, { ...answer, storedAt: this.options.now() }, answer.body.length + 512);
  }

  /** Something changed (an event) or may have (events were missed): nothing kept holds. */
  clear(): void {
    this.generation += 1;
    for (const key of this.answers.keys()) this.answers.delete(key);
  }

  /** `request` is about to be read (nothing kept answered it): its answer is kept only if nothing is cleared meanwhile. */
  reading(request: IncomingMessage): void {
    this.started.set(request, this.generation);
  }

  /**
   * Answers `request` from what is kept (304 when the visitor holds it already) and records its page
   * view; false when nothing is kept for it, and the request goes on to Koa (whose answer `keep`
   * keeps only if nothing was cleared meanwhile).
   */
  serve(request: IncomingMessage, response: ServerResponse, views: ViewRecorder | undefined): boolean {
    const kept = this.find(request);
    if (!kept) {
      this.reading(request);
      return false;
    }
    const ifNoneMatch = request.headers["if-none-match"];
    const notModified = ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(kept.etag);
    if (notModified) {
      response.writeHead(304, Object.fromEntries(Object.entries(kept.headers).filter(([name]) => !BODY_HEADERS.has(name))));
      response.end();
    } else {
      response.writeHead(200, kept.headers);
      response.end(request.method === "HEAD" ? undefined : kept.body);
    }
    if (kept.view && views) views.record(this.viewedRequest(request, notModified ? 304 : 200), kept.view);
    return true;
  }

  /** The request as a page view reads it, with Koa's rules for the client's address. */
  private viewedRequest(request: IncomingMessage, status: number): ViewedRequest {
    const forwardedFor = this.options.trustProxy
      ? String(request.headers["x-forwarded-for"] ?? "")
          .split(",")[0]!
          .trim()
      : "";
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(", ") : (value ?? "");
    };
    return {
      method: request.method ?? "GET",
      status,
      path: request.url ?? "/",
      querystring: "",
      ip: forwardedFor || request.socket.remoteAddress || "",
      header,
    };
  }
}
