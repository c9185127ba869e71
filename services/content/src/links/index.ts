import { LinkServiceService } from "@imprint/proto/content/v1/links";
import type { ConsumerSpec, ServiceRegistration } from "@imprint/runtime";
import { revisionDeps } from "../revisions/index.js";
import type { ContentDeps } from "../service.js";
import { LinkCaches } from "./caches.js";
import { LINK_SERVICE_NAME, linkServiceImplementation } from "./grpc/link-service.js";
import { linkExtractionConsumer, linkExtractionConsumerName } from "./revision-events.js";
import type { LinkDeps } from "./use-cases/deps.js";

/**
 * Links and backlinks of a space's content: references extracted once per page version, resolved
 * per revision (ok, broken, in-app). See README.md in this folder.
 */

export { linkEntities } from "./entities.js";
export { extractPageLinks, type ExtractedLink } from "./extract.js";
export { LINK_SERVICE_NAME, LinkCaches };
export type { LinkDeps };

const depsByService = new WeakMap<ContentDeps, LinkDeps>();

/** The links use cases' dependencies, built once per service instance (the gRPC service and the consumer share the caches). */
export function linkDeps(deps: ContentDeps): LinkDeps {
  let built = depsByService.get(deps);
  if (!built) {
    built = { ...revisionDeps(deps), links: new LinkCaches() };
    depsByService.set(deps, built);
  }
  return built;
}

/** The gRPC service of links (LinkService). */
export function linkGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  return [{ name: LINK_SERVICE_NAME, definition: LinkServiceService, implementation: linkServiceImplementation(deps.orm, linkDeps(deps)) }] as ServiceRegistration[];
}

/** Extraction right after each commit (see revision-events.ts). */
export function linkConsumers(deps: ContentDeps): ConsumerSpec[] {
  return [linkExtractionConsumer(linkDeps(deps), linkExtractionConsumerName(deps.config.DATABASE_URL))];
}
