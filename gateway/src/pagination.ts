import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { PageInfo, PageRequest } from "@imprint/proto/common/v1";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { parseInput, queryParam } from "./validation.js";

/**
 * GitBook's list convention: `?page=<opaque cursor>&limit=<0..1000>` in, `{items, next: {page}, count}`
 * out. A cursor is the service's keyset token plus the gateway's signature over it and the list it
 * was handed out for: callers can only send back cursors this gateway made for that list, so
 * nothing a caller edits into a token (an operator object, an ill-typed value) reaches a service.
 */
export const pageQueryShape = {
  page: z.string().min(1).max(2048).optional(),
  /** 0 or absent: the service's default page size (GitBook's `listLimit` allows 0 to 1000). */
  limit: queryParam.integer(0, 1000).optional(),
};

export const pageQuerySchema = z.object(pageQueryShape);
export type PageQuery = z.output<typeof pageQuerySchema>;

export const INVALID_PAGE_TOKEN = "page: not a valid page token for this list";

/** The setting holding the signing secret (at least 32 characters). */
export const PAGE_TOKEN_SECRET_SETTING = "IMPRINT_PAGE_TOKEN_SECRET";

// HMAC-SHA256 in base64url: 43 characters, after the last "." of a cursor.
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** The cursors of one list (one route with its path parameters), signed with the gateway's key. */
export interface ListCursors {
  /** The service's token inside a cursor this list handed out; invalid_argument for anything else. */
  open(cursor: string): string;
  /** The cursor for a service's next-page token ("" stays "": there is no next page). */
  seal(token: string): string;
}

/**
 * Signs and verifies cursors: `<service token>.<HMAC-SHA256(key, list, token)>`. The key is derived
 * from the configured secret (so the secret's bytes serve nothing else), or random per process.
 */
export class PageTokenSigner {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    this.key = createHmac("sha256", secret).update("imprint/page-token/v1").digest();
  }

  /** A signer whose cursors only this process accepts (they do not survive a restart or span replicas). */
  static ephemeral(): PageTokenSigner {
    return new PageTokenSigner(randomBytes(32));
  }

  /** `list` names the list, e.g. its route and path parameters; a cursor of one list is refused by another. */
  forList(list: string): ListCursors {
    return {
      open: (cursor) => this.open(cursor, list),
      seal: (token) => (token === "" ? "" : `${token}.${this.sign(token, list)}`),
    };
  }

  private sign(token: string, list: string): string {
    // The list never holds a line break (a route path and JSON), so "list \n token" is unambiguous.
    return createHmac("sha256", this.key).update(list).update("\n").update(token).digest("base64url");
  }

  private open(cursor: string, list: string): string {
    const dot = cursor.lastIndexOf(".");
    const token = cursor.slice(0, dot);
    const signature = cursor.slice(dot + 1);
    if (dot <= 0 || !SIGNATURE.test(signature)) throw AppError.invalidArgument(INVALID_PAGE_TOKEN);
    const expected = Buffer.from(this.sign(token, list));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw AppError.invalidArgument(INVALID_PAGE_TOKEN);
    return token;
  }
}

export function toPageRequest(query: PageQuery, cursors: ListCursors): PageRequest {
  return { pageToken: query.page === undefined ? "" : cursors.open(query.page), pageSize: query.limit ?? 0 };
}

/** Parses `page`/`limit` from a raw query object; throws invalid_argument naming the parameter. */
export function parsePageQuery(query: Record<string, unknown>, cursors: ListCursors): PageRequest {
  return toPageRequest(parseInput(pageQuerySchema, query, "query"), cursors);
}

export interface PagedList<Item> {
  items: Item[];
  next?: { page: string };
  count: number;
}

/** `next` only when more items exist, so a client can loop `while (list.next)`. */
export function toPagedList<Item>(items: Item[], page: PageInfo | undefined, cursors: ListCursors): PagedList<Item> {
  const list: PagedList<Item> = { items, count: page?.totalCount ?? items.length };
  if (page?.nextPageToken) list.next = { page: cursors.seal(page.nextPageToken) };
  return list;
}
