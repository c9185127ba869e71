import { AppError, textProblem } from "@imprint/runtime";

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** The page size asked for (0: the default), or invalid_argument naming `limit`. */
export function pageSizeOf(requested: number): number {
  const size = requested === 0 ? DEFAULT_PAGE_SIZE : requested;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw AppError.invalidArgument(`limit: must be an integer between 1 and ${MAX_PAGE_SIZE}`);
  return size;
}

/**
 * Opaque keyset tokens: the sort key of the last item of the previous page, marked with the list
 * they belong to, so a token of one list is refused by another. Keys are compared, not positions,
 * so a token stays meaningful when the next page is read from a newer revision.
 */
export function encodeToken(list: string, key: string[]): string {
  return Buffer.from(JSON.stringify({ l: list, k: key }), "utf8").toString("base64url");
}

export function decodeToken(list: string, token: string, keyLength: number): string[] | undefined {
  if (token === "") return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { l?: unknown; k?: unknown };
    if (parsed.l === list && Array.isArray(parsed.k) && parsed.k.length === keyLength && parsed.k.every((part) => typeof part === "string" && part.length <= 4096 && textProblem(part) === undefined)) {
      return parsed.k as string[];
    }
  } catch {
    // falls through to the error below
  }
  throw AppError.invalidArgument("page: not a valid page token for this list");
}

/** Compares keys part by part (code-unit order). */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/** One page of `items` (already in key order) after `after`, and the token of the next one. */
export function pageOf<T>(items: readonly T[], keyOf: (item: T) => string[], list: string, after: string[] | undefined, size: number): { page: T[]; nextPageToken: string } {
  let start = 0;
  if (after) {
    // Binary search for the first item whose key sorts after the token's.
    let high = items.length;
    while (start < high) {
      const middle = (start + high) >>> 1;
      if (compareKeys(keyOf(items[middle]!), after) <= 0) start = middle + 1;
      else high = middle;
    }
  }
  const page = items.slice(start, start + size);
  const last = page[page.length - 1];
  return { page, nextPageToken: start + size < items.length && last ? encodeToken(list, keyOf(last)) : "" };
}
