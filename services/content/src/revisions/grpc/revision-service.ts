import { AppError, forkEm, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { DocumentFormat, RevisionServiceService, type ReadOptions } from "@imprint/proto/content/v1/revisions";
import type { MikroORM } from "@mikro-orm/postgresql";
import { batchGetPageSummaries } from "../use-cases/batch-get-page-summaries.js";
import { getDocument } from "../use-cases/get-document.js";
import { getFile } from "../use-cases/get-file.js";
import { getPage, type PageReadInput } from "../use-cases/get-page.js";
import { getPageDocument } from "../use-cases/get-page-document.js";
import { getReusableContent } from "../use-cases/get-reusable-content.js";
import { getRevision } from "../use-cases/get-revision.js";
import { listBranchChanges } from "../use-cases/list-branch-changes.js";
import { listFiles } from "../use-cases/list-files.js";
import { listPages } from "../use-cases/list-pages.js";
import { listRevisionChanges } from "../use-cases/list-revision-changes.js";
import { readFileContent } from "../use-cases/read-file-content.js";
import { contentChangeToProto } from "./change-mappers.js";
import { contentRefFromProto, fileToProto, pageSummaryToProto, pageTreeToProto, reusableToProto, revisionToProto } from "./mappers.js";
import type { RevisionDeps } from "../../deps.js";

export const REVISION_SERVICE_NAME = "imprint.content.v1.RevisionService";

function formatFrom(format: DocumentFormat): PageReadInput["format"] {
  switch (format) {
    case DocumentFormat.DOCUMENT_FORMAT_UNSPECIFIED:
    case DocumentFormat.DOCUMENT_FORMAT_DOCUMENT:
      return "document";
    case DocumentFormat.DOCUMENT_FORMAT_MARKDOWN:
      return "markdown";
    default:
      throw AppError.invalidArgument("format: must be document or markdown");
  }
}

const metadataOf = (options: ReadOptions | undefined) => options?.metadata ?? false;

/** Thin transport over the read use cases: every call resolves a ContentRef the same way. */
export function revisionServiceImplementation(orm: MikroORM, deps: RevisionDeps): AsyncImplementation<typeof RevisionServiceService> {
  const em = () => forkEm(orm);

  const readPage = async (
    request: {
      caller?: PageReadInput["caller"];
      ref?: Parameters<typeof contentRefFromProto>[0];
      options?: ReadOptions;
      pageOptions?: { format: DocumentFormat; evaluated: boolean };
      knownRevisionId?: string;
    },
    target: PageReadInput["target"],
  ) => {
    const read = await getPage(
      em(),
      {
        caller: request.caller,
        ref: contentRefFromProto(request.ref),
        target,
        format: formatFrom(request.pageOptions?.format ?? DocumentFormat.DOCUMENT_FORMAT_UNSPECIFIED),
        evaluated: request.pageOptions?.evaluated ?? false,
        knownRevisionId: request.knownRevisionId,
      },
      deps,
    );
    if (read.notModified) return { page: undefined, revisionId: read.revision.id, organizationId: read.organizationId, notModified: true };
    const page = pageTreeToProto(read.tree, { metadata: metadataOf(request.options), markdown: read.subPageMarkdown });
    // The page itself carries its body in the requested format only.
    Object.assign(page, { markdown: read.markdown ?? "", hasMarkdown: read.markdown !== undefined });
    if (read.documentJson !== undefined) Object.assign(page, { documentJson: read.documentJson, hasDocument: true });
    return { page, revisionId: read.revision.id, organizationId: read.organizationId, notModified: false };
  };

  return {
    getRevision: async (request) => {
      const content = await getRevision(em(), { caller: request.caller, ref: contentRefFromProto(request.ref) }, deps);
      return { revision: revisionToProto(content, deps.signer, deps.clock(), metadataOf(request.options)) };
    },

    listPages: async (request) => {
      const listing = await listPages(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), knownRevisionId: request.knownRevisionId }, deps);
      const mapping = { metadata: metadataOf(request.options), markdown: listing.markdown };
      return {
        pages: listing.pages.map((tree) => pageTreeToProto(tree, mapping)),
        revisionId: listing.revision.id,
        organizationId: listing.organizationId,
        notModified: listing.notModified,
      };
    },

    getPage: (request) => readPage(request, { pageId: request.pageId }),

    getPageByPath: (request) => readPage(request, { path: request.path }),

    listFiles: async (request) => {
      const list = await listFiles(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), page: pageRequest(request.page) }, deps);
      const now = deps.clock();
      return {
        files: list.files.map((file) => fileToProto(file, deps.signer, now, metadataOf(request.options))),
        page: { nextPageToken: list.nextPageToken, totalCount: list.totalCount },
      };
    },

    getFile: async (request) => {
      const file = await getFile(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), fileId: request.fileId }, deps);
      return { file: fileToProto(file, deps.signer, deps.clock(), metadataOf(request.options)) };
    },

    batchGetPageSummaries: async (request) => {
      const summaries = await batchGetPageSummaries(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), pageIds: request.pageIds }, deps);
      return { pages: summaries.pages.map(({ page, path }) => pageSummaryToProto(page, path)), revisionId: summaries.revision.id };
    },

    readFileContent: async (request) => {
      const expires = Number(request.expires);
      if (!Number.isSafeInteger(expires)) throw AppError.invalidArgument("expires: must be a Unix time in seconds");
      const file = await readFileContent(em(), { fileId: request.fileId, version: request.version, expires, signature: request.signature }, deps);
      return { content: file.content, contentType: file.contentType, name: file.name };
    },

    listBranchChanges: async (request) => {
      const changes = await listBranchChanges(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), page: pageRequest(request.page) }, deps);
      const now = deps.clock();
      return {
        changes: changes.items.map((change) => contentChangeToProto(change, deps.signer, now)),
        page: { nextPageToken: changes.nextPageToken, totalCount: changes.totalCount },
        baseRevisionId: changes.baseRevisionId,
        revisionId: changes.revisionId,
        remaining: changes.remaining,
      };
    },

    listRevisionChanges: async (request) => {
      const changes = await listRevisionChanges(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), page: pageRequest(request.page) }, deps);
      const now = deps.clock();
      return {
        changes: changes.items.map((change) => contentChangeToProto(change, deps.signer, now)),
        page: { nextPageToken: changes.nextPageToken, totalCount: changes.totalCount },
        baseRevisionId: changes.baseRevisionId ?? "",
        revisionId: changes.revisionId,
        remaining: changes.remaining,
        mergedChangeRequestId: changes.mergedChangeRequestId ?? "",
      };
    },

    getPageDocument: (request) =>
      getPageDocument(em(), { caller: request.caller, ref: contentRefFromProto(request.ref), pageId: request.pageId, evaluated: request.evaluated }, deps),

    getDocument: (request) => getDocument(em(), { caller: request.caller, spaceId: request.spaceId, documentId: request.documentId }, deps),

    getReusableContent: async (request) => {
      const read = await getReusableContent(
        em(),
        {
          caller: request.caller,
          ref: contentRefFromProto(request.ref),
          reusableContentId: request.reusableContentId,
          withDocument: request.withDocument,
          evaluated: request.evaluated,
        },
        deps,
      );
      return { reusableContent: reusableToProto(read.reusable, metadataOf(request.options)), documentJson: read.documentJson ?? "" };
    },
  };
}
