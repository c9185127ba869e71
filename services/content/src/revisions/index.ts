import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { ServiceRegistration } from "@imprint/runtime";
import type { ContentDeps } from "../service.js";
import { EDITING_SERVICE_NAME, editingServiceImplementation } from "./grpc/editing-service.js";
import { REVISION_SERVICE_NAME, revisionServiceImplementation } from "./grpc/revision-service.js";
import { RevisionCaches } from "./store/caches.js";
import type { RevisionDeps } from "./use-cases/deps.js";

/**
 * The revision store: revisions and drafts of a space's content (pages, files, reusable contents,
 * variables), the internal editing API and the content reads. See docs/revisions.md.
 */

export { revisionEntities } from "./entities.js";
export { createInitialRevision, duplicateSpaceContent, readSpaceHead, advanceSpaceHead } from "./use-cases/space-content.js";
export { purgeSpaceContent, deleteOrphanedBlobs } from "./use-cases/purge-space-content.js";
export { markdownToDocument, parseMarkdown, type JsonDocument } from "@imprint/document";
export { signedDownloadUrl, verifyDownload, FILE_URL_TTL_SECONDS } from "./files/signed-url.js";
export { RevisionCaches } from "./store/caches.js";
export { EDITING_SERVICE_NAME, REVISION_SERVICE_NAME };
export type { RevisionDeps };

const cachesByService = new WeakMap<ContentDeps, RevisionCaches>();

/**
 * The revision store's use-case dependencies, from the content service's. The reads, the editing
 * API, import and links of one service instance share one set of caches: everything in it is
 * immutable, so sharing only saves memory and misses.
 */
export function revisionDeps(deps: ContentDeps): RevisionDeps {
  let caches = cachesByService.get(deps);
  if (!caches) {
    caches = new RevisionCaches();
    cachesByService.set(deps, caches);
  }
  return {
    clock: deps.clock,
    unitOfWork: deps.unitOfWork,
    memberships: deps.memberships,
    blobStore: deps.blobStore,
    caches,
    signer: { secret: deps.config.IMPRINT_FILE_URL_SECRET, publicUrl: deps.config.IMPRINT_PUBLIC_URL },
    logger: deps.logger,
  };
}

/** The gRPC services of the revision store (RevisionService for reads, EditingService for edits). */
export function revisionGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  const revision = revisionDeps(deps);
  return [
    { name: REVISION_SERVICE_NAME, definition: RevisionServiceService, implementation: revisionServiceImplementation(deps.orm, revision) },
    { name: EDITING_SERVICE_NAME, definition: EditingServiceService, implementation: editingServiceImplementation(deps.orm, revision) },
  ] as ServiceRegistration[];
}
