import type { EntityManager } from "@mikro-orm/postgresql";
import { resolvePageSize } from "@imprint/runtime";
import { requireSpaceReadAccess } from "../../spaces/index.js";
import type { CallerInput } from "../../access/index.js";
import { nextCursor, rankedPages, readCursor, withFallback, type PageResult } from "../store/results.js";
import { parseSearchQuery } from "../store/text-search.js";
import type { AccessDeps } from "../../deps.js";

export interface SearchSpaceContentInput {
  caller: CallerInput | undefined;
  spaceId: string;
  query: string;
  page: { pageToken?: string; pageSize?: number } | undefined;
}

export interface SearchSpaceContentResult {
  organizationId: string;
  pages: PageResult[];
  nextPageToken: string;
  totalCount: number;
}

/**
 * The pages of a space's current revision matching a web-search query, best first, with their
 * best sections. Needs `view` on the space (404 otherwise, as for a missing space).
 */
export async function searchSpaceContent(em: EntityManager, input: SearchSpaceContentInput, deps: AccessDeps): Promise<SearchSpaceContentResult> {
  const query = parseSearchQuery(input.query);
  const limit = resolvePageSize(input.page?.pageSize);
  const { space } = await requireSpaceReadAccess(em, deps, { caller: input.caller, spaceId: input.spaceId, need: "view" });
  const scope = `space:${space.id}`;
  const cursor = readCursor(input.page?.pageToken, scope, query);
  const ranked = await withFallback(query, cursor, (mode) => rankedPages(em, query, [space.id], mode, { offset: cursor.offset, limit }));
  const reached = cursor.offset + ranked.pages.length;
  return {
    organizationId: space.organizationId,
    pages: ranked.pages,
    nextPageToken: reached < ranked.total && ranked.pages.length > 0 ? nextCursor(scope, query, reached, ranked.mode) : "",
    totalCount: ranked.total,
  };
}
