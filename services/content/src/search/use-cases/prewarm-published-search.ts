import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { Space } from "../../spaces/index.js";
import type { SearchIndexDeps } from "../../deps.js";
import { indexSpace } from "./index-space.js";
import { MAX_PUBLISHED_SEARCH_SPACES } from "./search-published-content.js";

export interface PrewarmPublishedSearchInput {
  spaceIds: readonly string[];
}

/**
 * Brings the index of the published spaces among these to their current revisions now, for a
 * site whose visitors are about to search (the consumer would get there moments later). Each
 * space is indexed in its own transaction by indexSpace, the consumer's own convergent step: a
 * space already indexed at its head answers at once, and a call racing the consumer (or another
 * call) waits on the space's lock and then finds nothing to do. Names no caller, like the
 * published search: a space no published site shows, or a deleted one, is skipped.
 */
export async function prewarmPublishedSearch(em: EntityManager, input: PrewarmPublishedSearchInput, deps: SearchIndexDeps): Promise<{ updatedSpaces: number }> {
  if (input.spaceIds.length === 0 || input.spaceIds.length > MAX_PUBLISHED_SEARCH_SPACES) {
    throw AppError.invalidArgument(`spaceIds: must name 1 to ${MAX_PUBLISHED_SEARCH_SPACES} spaces`);
  }
  const ids = [...new Set(input.spaceIds)].filter(isId);
  const published = ids.length === 0 ? [] : await em.find(Space, { id: { $in: ids }, deletedAt: null, publishedAddress: { $gt: "" } }, { fields: ["id"] });
  let updatedSpaces = 0;
  for (const space of published) {
    const result = await em.fork().transactional((tx) => indexSpace(tx, space.id, deps));
    if (result.updated) updatedSpaces += 1;
  }
  return { updatedSpaces };
}
