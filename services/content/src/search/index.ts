import { SearchServiceService } from "@imprint/proto/content/v1/search";
import { CacheBudget, CachedLoader, type ConsumerSpec, type ServiceRegistration } from "@imprint/runtime";
import { bodyBytes, RevisionCaches } from "../revisions/index.js";
import type { BodyRecord, PageRecord } from "../revisions/index.js";
import { defaultSearchConsumerName, searchIndexConsumer } from "./consumers/index-events.js";
import { SEARCH_SERVICE_NAME, searchServiceImplementation } from "./grpc/search-service.js";
import type { ContentDeps } from "../deps.js";

/**
 * Full-text search over spaces' current content (PostgreSQL text search, one vector per page and
 * per section), indexed from content events. See docs/search.md.
 */

export { SEARCH_SERVICE_NAME };
export { searchEntities } from "./domain/entities.js";
export { indexSpace, dropSpaceFromIndex, type IndexSpaceResult } from "./use-cases/index-space.js";
export type { SearchIndexDeps } from "../deps.js";
export { searchSpaceContent } from "./use-cases/search-space-content.js";
export { searchOrganizationContent } from "./use-cases/search-organization-content.js";
export { prewarmPublishedSearch } from "./use-cases/prewarm-published-search.js";
export { defaultSearchConsumerName };

/** The gRPC service of search (SearchService); its prewarming indexes with caches of its own, as the consumer does. */
export function searchGrpcServices(deps: ContentDeps, budget: CacheBudget): ServiceRegistration[] {
  const indexing = { caches: indexingCaches(budget, "prewarm "), clock: deps.clock };
  return [{ name: SEARCH_SERVICE_NAME, definition: SearchServiceService, implementation: searchServiceImplementation(deps.orm, deps, indexing) }];
}

/**
 * The revision store's caches, sized for indexing, within the process's budget: tree nodes are
 * kept (the next diff starts from the nodes of the revision indexed last), but an index update
 * reads each page version and body once, so few of those are kept, bounded on their own (a
 * 10,000-page import would otherwise push ~70 MB of them through the budget, and the reads' out).
 */
export function indexingCaches(budget: CacheBudget, prefix: string): RevisionCaches {
  return new RevisionCaches(budget, prefix, {
    pages: new CachedLoader<PageRecord>({ name: "page versions", maxEntries: 2_000 }),
    bodies: new CachedLoader<BodyRecord>({ name: "bodies", maxBytes: 4 * 1024 * 1024, bytes: bodyBytes }),
  });
}

/** The consumer that keeps the index current, with caches of its own sized for indexing (see indexingCaches). */
export function searchConsumers(deps: ContentDeps, budget: CacheBudget): ConsumerSpec[] {
  const consumer = deps.config.SEARCH_INDEX_CONSUMER ?? defaultSearchConsumerName(deps.config.DATABASE_URL);
  return [searchIndexConsumer({ caches: indexingCaches(budget, "indexing "), clock: deps.clock }, consumer)];
}
