import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ServiceRegistration } from "@imprint/runtime";
import { EDITING_SERVICE_NAME, editingServiceImplementation } from "./grpc/editing-service.js";
import { REVISION_SERVICE_NAME, revisionServiceImplementation } from "./grpc/revision-service.js";
import { RevisionCaches } from "./store/caches.js";
import type { ContentDeps, RevisionDeps } from "../deps.js";

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

/**
 * The revision store's use-case dependencies, from the content service's; service.ts builds them
 * once, so the reads, the editing API, branches, import, exports and links share one set of caches.
 */
export function revisionDeps(deps: ContentDeps, caches: RevisionCaches = new RevisionCaches()): RevisionDeps {
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
export function revisionGrpcServices(orm: MikroORM, revision: RevisionDeps): ServiceRegistration[] {
  return [
    { name: REVISION_SERVICE_NAME, definition: RevisionServiceService, implementation: revisionServiceImplementation(orm, revision) },
    { name: EDITING_SERVICE_NAME, definition: EditingServiceService, implementation: editingServiceImplementation(orm, revision) },
  ] as ServiceRegistration[];
}
