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
import type { ContentDeps, EditingDeps, PublishedGitSourceOf, RevisionDeps } from "../deps.js";
import { fetchExternalOpenApiDocument } from "../openapi/index.js";

/**
 * The revision store: revisions and drafts of a space's content (pages, files, reusable contents,
 * variables), the internal editing API and the content reads. See docs/revisions.md.
 */

export { revisionEntities } from "./domain/entities.js";
export { createInitialRevision, duplicateSpaceContent, readSpaceHead, advanceSpaceHead } from "./use-cases/shared/space-content.js";
export { purgeSpaceContent, deleteOrphanedBlobs } from "./use-cases/shared/purge-space-content.js";
export { markdownToDocument, parseMarkdown, type JsonDocument } from "@imprint/document";
export { signedDownloadUrl, verifyDownload, FILE_URL_TTL_SECONDS } from "./domain/files/signed-url.js";
export { RevisionCaches, bodyBytes } from "./domain/tree/caches.js";
export { Branch } from "./domain/branches/entities.js";
export { BRANCH_SERVICE_NAME, EDITING_SERVICE_NAME, REVISION_SERVICE_NAME };
export type { RevisionDeps };

/**
 * The revision store's use-case dependencies, from the content service's; service.ts builds them
 * once, so the reads, the editing API, branches, import, exports and links share one set of caches.
 */
export function revisionDeps(deps: ContentDeps, caches: RevisionCaches): RevisionDeps {
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
 * the editing API also fetches files from URLs through the fetch guard, hence `editing`, as the
 * published read does OpenAPI documents a page names by a URL no stored specification has).
 */
export function revisionGrpcServices(orm: MikroORM, revision: RevisionDeps, editing: EditingDeps, gitSource: PublishedGitSourceOf): ServiceRegistration[] {
  return [
    { name: REVISION_SERVICE_NAME, definition: RevisionServiceService, implementation: revisionServiceImplementation(orm, revision) },
    { name: EDITING_SERVICE_NAME, definition: EditingServiceService, implementation: editingServiceImplementation(orm, editing) },
    {
      name: PUBLISHED_CONTENT_SERVICE_NAME,
      definition: PublishedContentServiceService,
      implementation: publishedContentServiceImplementation(orm, revision, (url) => fetchExternalOpenApiDocument(url, editing.fetchPolicy), gitSource),
    },
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

/** What the other modules use. */
export { newContentId, type DraftEditor, type PagePatch } from "./domain/editing/draft-editor.js";
export { CONTENT_ID, PAGE_LIMITS } from "./domain/editing/page-input.js";
export { validateReusableContent } from "./domain/editing/reusable-content.js";
export { PageVersion } from "./domain/entities.js";
export { validateFile } from "./domain/files/file-rules.js";
export { imageDimensions } from "./domain/files/image-dimensions.js";
export { signUrl, type FileUrlSigner, verifySignedUrl } from "./domain/files/signed-url.js";
export { evaluateDocument } from "./domain/markdown/evaluate.js";
export { treeScan, type NodeSource, type TreeNode } from "./domain/tree/btree.js";
export type { RevisionHeader } from "./domain/tree/caches.js";
export { ContentView, MAX_PAGE_DEPTH, type PageTree } from "./domain/tree/content-view.js";
export { FILE_PREFIX, PAGE_PREFIX } from "./domain/tree/keys.js";
export {
  DEFAULT_LAYOUT,
  type BodyRecord,
  type FileRecord,
  type ImageRefValue,
  type PageIndex,
  type PageRecord,
  type ReusableRecord,
} from "./domain/tree/model.js";
export { buildPageIndex } from "./domain/tree/page-index.js";
export { diffPageVersions, type PageChange } from "./domain/tree/page-diff.js";
export { contentRefFromProto, fileToProto, pageToProto } from "./grpc/mappers.js";
export { mergeBaseOf, mergeOfRevision, requireBranch, requireUnmerged, type BranchRecord } from "./store/branch-rows.js";
export { compareAndSetSpaceHead, findRevision } from "./store/revision-rows.js";
export { StoreSession } from "./store/session.js";
export { applyPageOperations, type PageOperation } from "./use-cases/apply-page-operations.js";
export { commitDraft } from "./use-cases/commit-draft.js";
export { discardDraft } from "./use-cases/discard-draft.js";
export { openDraft } from "./use-cases/open-draft.js";
export { commitThreeWayMerge, requireCommittedRevision } from "./use-cases/shared/branch-revisions.js";
export { editDraft, recordRevisionCreated } from "./use-cases/shared/drafts.js";
export { openContent, openContentWithSpace, type ContentRefInput } from "./use-cases/shared/open-content.js";
export { newPageFrom } from "./use-cases/shared/page-input.js";
export { storeBlob, uploadFile } from "./use-cases/upload-file.js";
