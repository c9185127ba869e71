import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ServiceRegistration } from "@imprint/runtime";
import { BRANCH_SERVICE_NAME, branchServiceImplementation } from "./grpc/branch-service.js";
import { EDITING_SERVICE_NAME, editingServiceImplementation } from "./grpc/editing-service.js";
import { PUBLISHED_CONTENT_SERVICE_NAME, publishedContentServiceImplementation } from "./grpc/published-content-service.js";
import { REVISION_SERVICE_NAME, revisionServiceImplementation } from "./grpc/revision-service.js";
import { RevisionCaches } from "./domain/tree/caches.js";
import type { ContentDeps, EditingDeps, RevisionDeps } from "../deps.js";

/**
 * The revision store: revisions and drafts of a space's content (pages, files, reusable contents,
 * variables), the internal editing API and the content reads. See docs/revisions.md.
 */

export { revisionEntities } from "./domain/entities.js";
export { createInitialRevision, duplicateSpaceContent, readSpaceHead, advanceSpaceHead } from "./use-cases/shared/space-content.js";
export { purgeSpaceContent, deleteOrphanedBlobs } from "./use-cases/shared/purge-space-content.js";
export { markdownToDocument, parseMarkdown, type JsonDocument } from "@imprint/document";
export { signedDownloadUrl, verifyDownload, FILE_URL_TTL_SECONDS } from "./domain/files/signed-url.js";
export { RevisionCaches } from "./domain/tree/caches.js";
export { Branch } from "./domain/branches/entities.js";
export { BRANCH_SERVICE_NAME, EDITING_SERVICE_NAME, REVISION_SERVICE_NAME };
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

/**
 * The gRPC services of the revision store (RevisionService for reads, EditingService for edits;
 * the editing API also fetches files from URLs through the fetch guard, hence `editing`).
 */
export function revisionGrpcServices(orm: MikroORM, revision: RevisionDeps, editing: EditingDeps): ServiceRegistration[] {
  return [
    { name: REVISION_SERVICE_NAME, definition: RevisionServiceService, implementation: revisionServiceImplementation(orm, revision) },
    { name: EDITING_SERVICE_NAME, definition: EditingServiceService, implementation: editingServiceImplementation(orm, editing) },
    { name: PUBLISHED_CONTENT_SERVICE_NAME, definition: PublishedContentServiceService, implementation: publishedContentServiceImplementation(orm, revision) },
  ] as ServiceRegistration[];
}

/**
 * The gRPC service of branches (BranchService): branches of a space's history for change requests
 * (docs/revisions.md § Branches), created, read, merged into the space and updated from it; edited
 * through the editing API (drafts opened on the branch) and read through every content read
 * (ContentRef.change_request_id).
 */
export function branchGrpcServices(orm: MikroORM, revision: RevisionDeps): ServiceRegistration[] {
  return [{ name: BRANCH_SERVICE_NAME, definition: BranchServiceService, implementation: branchServiceImplementation(orm, revision) }] as ServiceRegistration[];
}
