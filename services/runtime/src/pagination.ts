import type { EntityManager, EntityName, EntityProperty, FilterQuery } from "@mikro-orm/postgresql";
import { isId } from "./caller.js";
import { AppError } from "./errors.js";
import { textProblem } from "./text.js";

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

/**
 * A list's `order` (the proto `imprint.common.v1.SortOrder`, by its wire numbers, which `buf
 * breaking` keeps): UNSPECIFIED (0) is the list's default (undefined), ASC (1) and DESC (2) are
 * themselves, anything else is invalid_argument naming `order`.
 */
export function sortDirectionFromProto(order: number): SortDirection | undefined {
  switch (order) {
    case 0:
      return undefined;
    case 1:
      return "asc";
    case 2:
      return "desc";
    default:
      throw AppError.invalidArgument("order: must be asc or desc");
  }
}

export function resolvePageSize(pageSize: number | undefined): number {
  if (pageSize === undefined || pageSize === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw AppError.invalidArgument(`limit: must be an integer between 1 and ${MAX_PAGE_SIZE}`);
  }
  return pageSize;
}

/**
 * What a sort key's value must be in a page token. Tokens come back from callers, so a decoded
 * value is checked against its field's type before it reaches a query: anything else (an object
 * such as `{"$in": [...]}`, which MikroORM would read as an operator, a number where a date
 * belongs, a string PostgreSQL cannot cast to uuid) is an invalid token, not a failed query.
 */
export type KeyKind = "string" | "uuid" | "date" | "integer" | "number" | "boolean";
export interface KeyType {
  kind: KeyKind;
  /** Whether null is a value of the field (it never is unless said so). */
  nullable?: boolean;
}

const INVALID_PAGE_TOKEN = "page: not a valid page token for this list";
// What Date#toISOString writes, the only form tokens carry dates in.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Longer than any sort column; bounds what a forged token can make a query compare. */
const MAX_KEY_STRING_LENGTH = 4096;

function fitsKeyType(value: unknown, type: KeyType): value is KeyValue {
  if (value === null) return type.nullable === true;
  switch (type.kind) {
    case "string":
      return typeof value === "string" && value.length <= MAX_KEY_STRING_LENGTH && textProblem(value) === undefined;
    case "uuid":
      return isId(value);
    case "date": {
      if (typeof value !== "string" || !ISO_DATE.test(value)) return false;
      // Exactly what toISOString wrote: Date.parse rolls 2024-02-30 over to March, PostgreSQL refuses it.
      const time = Date.parse(value);
      return Number.isFinite(time) && new Date(time).toISOString() === value;
    }
    case "integer":
      return Number.isSafeInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
  }
}

/**
 * Page tokens are opaque to callers: base64url JSON of the sort key values of the last item of
 * the previous page, plus a fingerprint of the sort so a token is never replayed against another order.
 */
export function encodePageToken(sortFingerprint: string, values: KeyValue[]): string {
  return Buffer.from(JSON.stringify({ s: sortFingerprint, v: values })).toString("base64url");
}

/** The key values of a token made by {@link encodePageToken} for this sort, each of its field's type, or invalid_argument. */
export function decodePageToken(token: string, sortFingerprint: string, keys: readonly (KeyKind | KeyType)[]): KeyValue[] {
  let decoded: { s?: unknown; v?: unknown } | null = null;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { s?: unknown; v?: unknown } | null;
  } catch {
    // reported below
  }
  const values = decoded?.v;
  if (
    decoded?.s !== sortFingerprint ||
    !Array.isArray(values) ||
    values.length !== keys.length ||
    !keys.every((key, index) => fitsKeyType(values[index], typeof key === "string" ? { kind: key } : key))
  ) {
    throw AppError.invalidArgument(INVALID_PAGE_TOKEN);
  }
  return values as KeyValue[];
}

/** A list request once read: its page size and the key the previous page ended on. */
export interface PageCursor {
  /** The list's sort, written into its tokens (a token of another list or order is refused). */
  fingerprint: string;
  pageSize: number;
  /** Key values of the previous page's last item; undefined for the first page. */
  after: KeyValue[] | undefined;
}

/**
 * Reads a list request: the page size (invalid_argument naming `limit`), then the page token of
 * the list `fingerprint`, whose key values must be of types `keys` (invalid_argument naming `page`).
 */
export function readPageRequest(request: PageRequestLike | undefined, fingerprint: string, keys: readonly (KeyKind | KeyType)[]): PageCursor {
  const pageSize = resolvePageSize(request?.pageSize);
  const after = request?.pageToken ? decodePageToken(request.pageToken, fingerprint, keys) : undefined;
  return { fingerprint, pageSize, after };
}

/** Compares string keys part by part, in code-unit order (the order of JavaScript's `<`). */
export function compareStringKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/**
 * One page of a list held in memory (e.g. computed from a revision), already sorted by
 * `keyOf` in {@link compareStringKeys} order. Keys are compared, not positions, so a token stays
 * meaningful when the next page is read from a newer version of the list.
 */
export function pageOfSorted<T>(items: readonly T[], keyOf: (item: T) => string[], cursor: PageCursor): Page<T> {
  let start = 0;
  const after = cursor.after as string[] | undefined;
  if (after) {
    // Binary search for the first item whose key sorts after the token's.
    let high = items.length;
    while (start < high) {
      const middle = (start + high) >>> 1;
      if (compareStringKeys(keyOf(items[middle]!), after) <= 0) start = middle + 1;
      else high = middle;
    }
  }
  const page = items.slice(start, start + cursor.pageSize);
  const last = page[page.length - 1];
  const more = start + cursor.pageSize < items.length;
  return { items: page, nextPageToken: more && last ? encodePageToken(cursor.fingerprint, keyOf(last)) : "", totalCount: items.length };
}

export interface KeysetSort<T> {
  /** Entity property names, most significant first; the last must be unique (usually the id). */
  fields: (keyof T & string)[];
  direction: SortDirection;
  /** How each field's value is written into the token and read back (dates become ISO strings). */
  dateFields?: (keyof T & string)[];
}

const INTEGER_COLUMNS = new Set(["smallint", "int", "integer", "int2", "int4", "int8", "bigint"]);

/** Each sort field's type, from the entity's mapping: what a token's values are checked against. */
function keyTypes<T extends object>(em: EntityManager, entity: EntityName<T>, sort: KeysetSort<T>): KeyType[] {
  const properties = em.getMetadata().find(entity)?.properties as Record<string, EntityProperty | undefined> | undefined;
  return sort.fields.map((field) => {
    const property = properties?.[field];
    const nullable = property?.nullable === true;
    const columnType = property?.columnTypes?.[0]?.toLowerCase() ?? "";
    if (sort.dateFields?.includes(field) || property?.runtimeType === "Date") return { kind: "date", nullable };
    if (columnType === "uuid") return { kind: "uuid", nullable };
    if (property?.runtimeType === "boolean") return { kind: "boolean", nullable };
    if (property?.runtimeType === "number") return { kind: INTEGER_COLUMNS.has(columnType) ? "integer" : "number", nullable };
    return { kind: "string", nullable };
  });
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

/**
 * One page of `entity` matching `where`, in keyset order, with the total count. `fields` loads
 * only those columns (the sort's are added): rows with large columns a list does not show.
 */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  sort: KeysetSort<T>,
  request: PageRequestLike | undefined,
  options: { populate?: string[]; fields?: readonly string[] } = {},
): Promise<Page<T>> {
  const { pageSize, after, fingerprint } = readPageRequest(request, `${sort.fields.join(",")}:${sort.direction}`, keyTypes(em, entity, sort));
  const filter = after ? ({ $and: [where, afterCondition(sort, after)] } as FilterQuery<T>) : where;
  const orderBy = Object.fromEntries(sort.fields.map((field) => [field, sort.direction]));
  const [rows, totalCount] = await Promise.all([
    // Generic keyset filters are built at run time; MikroORM's per-entity filter types cannot follow them.
    em.find(
      entity,
      filter as never,
      {
        orderBy,
        limit: pageSize + 1,
        populate: options.populate,
        ...(options.fields ? { fields: [...new Set([...options.fields, ...sort.fields])] } : {}),
      } as never,
    ),
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
