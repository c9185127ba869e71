import { SearchServiceService } from "@imprint/proto/content/v1/search";
import type { ConsumerSpec, ServiceRegistration } from "@imprint/runtime";
import { RevisionCaches } from "../revisions/index.js";
import type { ContentDeps } from "../service.js";
import { defaultSearchConsumerName, searchIndexConsumer } from "./index-events.js";
import { SEARCH_SERVICE_NAME, searchServiceImplementation } from "./search-service.js";

/**
 * Full-text search over spaces' current content (PostgreSQL text search, one vector per page and
 * per section), indexed from content events. See docs/search.md.
 */

export { SEARCH_SERVICE_NAME };
export { searchEntities } from "./entities.js";
export { indexSpace, dropSpaceFromIndex, type SearchIndexDeps, type IndexSpaceResult } from "./index-space.js";
export { searchSpaceContent } from "./search-space-content.js";
export { searchOrganizationContent } from "./search-organization-content.js";
export { defaultSearchConsumerName };

/** The gRPC service of search (SearchService). */
export function searchGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  return [{ name: SEARCH_SERVICE_NAME, definition: SearchServiceService, implementation: searchServiceImplementation(deps.orm, deps) }];
}

/**
 * The consumer that keeps the index current. The revision store's caches are its own: the reads'
 * caches are private to the revision services, and indexing touches other rows (bodies once).
 */
export function searchConsumers(deps: ContentDeps): ConsumerSpec[] {
  const consumer = deps.config.SEARCH_INDEX_CONSUMER ?? defaultSearchConsumerName(deps.config.DATABASE_URL);
  return [searchIndexConsumer({ caches: new RevisionCaches(), clock: deps.clock }, consumer)];
}
