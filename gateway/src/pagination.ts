import type { PageInfo, PageRequest } from "@imprint/proto/common/v1";
import { z } from "zod";
import { parseInput, queryParam } from "./validation.js";

/**
 * GitBook's list convention: `?page=<opaque cursor>&limit=<0..1000>` in, `{items, next: {page}, count}`
 * out. The cursor is the service's keyset token, passed through untouched.
 */
export const pageQueryShape = {
  page: z.string().min(1).max(2048).optional(),
  /** 0 or absent: the service's default page size. */
  limit: queryParam.integer(0, 1000).optional(),
};

export const pageQuerySchema = z.object(pageQueryShape);
export type PageQuery = z.output<typeof pageQuerySchema>;

export function toPageRequest(query: PageQuery): PageRequest {
  return { pageToken: query.page ?? "", pageSize: query.limit ?? 0 };
}

/** Parses `page`/`limit` from a raw query object; throws invalid_argument naming the parameter. */
export function parsePageQuery(query: Record<string, unknown>): PageRequest {
  return toPageRequest(parseInput(pageQuerySchema, query, "query"));
}

export interface PagedList<Item> {
  items: Item[];
  next?: { page: string };
  count: number;
}

/** `next` only when more items exist, so a client can loop `while (list.next)`. */
export function toPagedList<Item>(items: Item[], page: PageInfo | undefined): PagedList<Item> {
  const list: PagedList<Item> = { items, count: page?.totalCount ?? items.length };
  if (page?.nextPageToken) list.next = { page: page.nextPageToken };
  return list;
}
