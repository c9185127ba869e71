import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { Space } from "../../spaces/index.js";
import { rankedPages, withFallback, type PageResult } from "../store/results.js";
import { parseSearchQuery } from "../store/text-search.js";

export interface SearchPublishedContentInput {
  spaceIds: readonly string[];
  query: string;
  limit: number;
}

/** Spaces one published search may name (a site's visible site-spaces). */
export const MAX_PUBLISHED_SEARCH_SPACES = 100;
/** Pages one published search may answer. */
export const MAX_PUBLISHED_SEARCH_RESULTS = 50;

/**
 * The best pages of published spaces matching a web-search query, for the reader. It names no
 * caller: the reader decides which spaces a visitor sees and names them; a space no published
 * site shows (or a deleted one) takes no part, as if it held no match.
 */
export async function searchPublishedContent(em: EntityManager, input: SearchPublishedContentInput): Promise<{ pages: PageResult[]; totalCount: number }> {
  const query = parseSearchQuery(input.query);
  if (input.spaceIds.length === 0 || input.spaceIds.length > MAX_PUBLISHED_SEARCH_SPACES) {
    throw AppError.invalidArgument(`spaceIds: must name 1 to ${MAX_PUBLISHED_SEARCH_SPACES} spaces`);
  }
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_PUBLISHED_SEARCH_RESULTS) {
    throw AppError.invalidArgument(`limit: must be 1 to ${MAX_PUBLISHED_SEARCH_RESULTS}`);
  }
  const ids = [...new Set(input.spaceIds)].filter(isId);
  const published = ids.length === 0 ? [] : await em.find(Space, { id: { $in: ids }, deletedAt: null, publishedAddress: { $gt: "" } }, { fields: ["id"] });
  const ranked = await withFallback(query, { offset: 0, mode: undefined }, (mode) =>
    rankedPages(
      em,
      query,
      published.map((space) => space.id),
      mode,
      { offset: 0, limit: input.limit },
    ),
  );
  return { pages: ranked.pages, totalCount: ranked.total };
}
