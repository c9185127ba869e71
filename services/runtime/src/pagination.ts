import type { EntityManager, EntityName, FilterQuery } from "@mikro-orm/postgresql";
import { AppError } from "./errors.js";

/** GitBook's lists cap `limit` at 1000 and state no default; 50 keeps responses small by default. */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;

export interface PageRequestLike {
  pageToken?: string | undefined;
  pageSize?: number | undefined;
}

export interface Page<T> {
  items: T[];
  /** Empty when this is the last page. */
  nextPageToken: string;
  totalCount: number;
}

export type SortDirection = "asc" | "desc";
type KeyValue = string | number | boolean | null;

export function resolvePageSize(pageSize: number | undefined): number {
  if (pageSize === undefined || pageSize === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw AppError.invalidArgument(`limit: must be an integer between 1 and ${MAX_PAGE_SIZE}`);
  }
  return pageSize;
}

/**
 * Page tokens are opaque to callers: base64url JSON of the sort key values of the last item of
 * the previous page, plus a fingerprint of the sort so a token is never replayed against another order.
 */
export function encodePageToken(sortFingerprint: string, values: KeyValue[]): string {
  return Buffer.from(JSON.stringify({ s: sortFingerprint, v: values })).toString("base64url");
}

export function decodePageToken(token: string, sortFingerprint: string, arity: number): KeyValue[] {
  try {
    const decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { s?: unknown; v?: unknown };
    if (decoded.s === sortFingerprint && Array.isArray(decoded.v) && decoded.v.length === arity) {
      return decoded.v as KeyValue[];
    }
  } catch {
    // fall through to the error below
  }
  throw AppError.invalidArgument("page: not a valid page token for this list");
}

export interface KeysetSort<T> {
  /** Entity property names, most significant first; the last must be unique (usually the id). */
  fields: (keyof T & string)[];
  direction: SortDirection;
  /** How each field's value is written into the token and read back (dates become ISO strings). */
  dateFields?: (keyof T & string)[];
}

/** Builds `(a, b) > (x, y)` as nested OR/AND conditions that PostgreSQL can use an index for. */
function afterCondition<T>(sort: KeysetSort<T>, values: KeyValue[]): FilterQuery<T> {
  const op = sort.direction === "asc" ? "$gt" : "$lt";
  const toValue = (field: string, value: KeyValue) =>
    sort.dateFields?.includes(field as keyof T & string) && typeof value === "string" ? new Date(value) : value;
  const alternatives = sort.fields.map((field, index) => {
    const condition: Record<string, unknown> = {};
    sort.fields.slice(0, index).forEach((previous, i) => (condition[previous] = toValue(previous, values[i] ?? null)));
    condition[field] = { [op]: toValue(field, values[index] ?? null) };
    return condition;
  });
  return { $or: alternatives } as FilterQuery<T>;
}

/** One page of `entity` matching `where`, in keyset order, with the total count. */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  sort: KeysetSort<T>,
  request: PageRequestLike | undefined,
  options: { populate?: string[] } = {},
): Promise<Page<T>> {
  const pageSize = resolvePageSize(request?.pageSize);
  const fingerprint = `${sort.fields.join(",")}:${sort.direction}`;
  const filter = request?.pageToken
    ? ({ $and: [where, afterCondition(sort, decodePageToken(request.pageToken, fingerprint, sort.fields.length))] } as FilterQuery<T>)
    : where;
  const orderBy = Object.fromEntries(sort.fields.map((field) => [field, sort.direction]));
  const [rows, totalCount] = await Promise.all([
    // Generic keyset filters are built at run time; MikroORM's per-entity filter types cannot follow them.
    em.find(entity, filter as never, { orderBy, limit: pageSize + 1, populate: options.populate } as never),
    em.count(entity, where as never),
  ]);
  const items = rows.slice(0, pageSize) as T[];
  let nextPageToken = "";
  if (rows.length > pageSize) {
    const last = items[items.length - 1] as Record<string, unknown>;
    nextPageToken = encodePageToken(
      fingerprint,
      sort.fields.map((field) => {
        const value = last[field];
        return value instanceof Date ? value.toISOString() : (value as KeyValue);
      }),
    );
  }
  return { items, nextPageToken, totalCount };
}

/** A list request's page from the wire (the proto `PageRequest` has these fields). */
export function pageRequest(page: PageRequestLike | undefined): PageRequestLike | undefined {
  return page ? { pageToken: page.pageToken, pageSize: page.pageSize } : undefined;
}

/** What a list response says of its page (the proto `PageInfo`'s fields). */
export function pageInfo(page: Page<unknown>): { nextPageToken: string; totalCount: number } {
  return { nextPageToken: page.nextPageToken, totalCount: page.totalCount };
}
