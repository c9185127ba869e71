import { LinkServiceService } from "@imprint/proto/content/v1/links";
import { type CacheBudget, safeFetchPolicy, type ConsumerSpec, type ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ResolvedContentConfig } from "../config.js";
import { LinkCaches } from "./domain/caches.js";
import { LINK_SERVICE_NAME, linkServiceImplementation } from "./grpc/link-service.js";
import { linkExtractionConsumer, linkExtractionConsumerName } from "./consumers/revision-events.js";
import type { LinkDeps } from "./deps.js";
import type { RevisionDeps } from "../deps.js";

/**
 * Links and backlinks of a space's content: references extracted once per page version, resolved
 * per revision (ok, broken, in-app). See docs/links.md.
 */

export { linkEntities } from "./domain/entities.js";
export { extractPageLinks, type ExtractedLink } from "./domain/extract.js";
export { LINK_SERVICE_NAME, LinkCaches };
export type { LinkDeps };

/**
 * The links use cases' dependencies; service.ts builds them once (the gRPC service and the consumer
 * share the caches, charged against the process's one cache budget).
 */
export function linkDeps(
  revision: RevisionDeps,
  budget: CacheBudget,
  config: Pick<ResolvedContentConfig, "IMPRINT_ALLOW_PRIVATE_FETCH" | "IMPRINT_FETCH_DNS_SERVERS">,
): LinkDeps {
  // An embed is read while its caller waits: a short time and a small body.
  const fetchPolicy = safeFetchPolicy(
    { allowPrivateAddresses: config.IMPRINT_ALLOW_PRIVATE_FETCH, service: "content", dnsServers: config.IMPRINT_FETCH_DNS_SERVERS },
    { requestTimeoutMs: 5_000, maxRedirects: 3 },
  );
  return { ...revision, links: new LinkCaches(budget), fetchPolicy };
}

/** The gRPC service of links (LinkService). */
export function linkGrpcServices(orm: MikroORM, links: LinkDeps): ServiceRegistration[] {
  return [{ name: LINK_SERVICE_NAME, definition: LinkServiceService, implementation: linkServiceImplementation(orm, links) }] as ServiceRegistration[];
}

/** Extraction right after each commit (see revision-events.ts). */
export function linkConsumers(links: LinkDeps, config: Pick<ResolvedContentConfig, "DATABASE_URL">): ConsumerSpec[] {
  return [linkExtractionConsumer(links, linkExtractionConsumerName(config.DATABASE_URL))];
}
