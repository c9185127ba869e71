import { AppError, forkEm, type AsyncImplementation } from "@imprint/runtime";
import { EditingServiceService, type PageOperation as ProtoPageOperation } from "@imprint/proto/content/v1/editing";
import { Page } from "@imprint/proto/content/v1/revisions";
import type { MikroORM } from "@mikro-orm/postgresql";
import { contentIdFrom } from "../domain/editing/page-input.js";
import { newPageFrom, pageMoveFrom, pagePatchFrom } from "../use-cases/shared/page-input.js";
import { applyPageOperations, MAX_OPERATIONS, type PageOperation } from "../use-cases/apply-page-operations.js";
import { commitDraft } from "../use-cases/commit-draft.js";
import { createPage } from "../use-cases/create-page.js";
import { deleteFile } from "../use-cases/delete-file.js";
import { deletePage } from "../use-cases/delete-page.js";
import { discardDraft } from "../use-cases/discard-draft.js";
import { getDraft } from "../use-cases/get-draft.js";
import { movePage } from "../use-cases/move-page.js";
import { openDraft } from "../use-cases/open-draft.js";
import { setReusableContent } from "../use-cases/set-reusable-content.js";
import { setVariables } from "../use-cases/set-variables.js";
import { updatePage } from "../use-cases/update-page.js";
import { uploadFile } from "../use-cases/upload-file.js";
import { updateBranchContent } from "../use-cases/update-branch-content.js";
import { affectedPageToProto, contentChangeFrom } from "./content-change-mappers.js";
import { draftToProto, fileToProto, pageToProto, reusableToProto } from "./mappers.js";
import type { EditingDeps } from "../../deps.js";

export const EDITING_SERVICE_NAME = "imprint.content.v1.EditingService";

const field = (name: string) => name;

function operationFrom(operation: ProtoPageOperation, index: number): PageOperation {
  const at = (kind: string) => (name: string) => `operations[${index}].${kind}.${name}`;
  if (operation.create) return { kind: "create", page: newPageFrom(operation.create, at("create")) };
  if (operation.update) return { kind: "update", patch: pagePatchFrom(operation.update, at("update")) };
  if (operation.move) return { kind: "move", move: pageMoveFrom(operation.move, at("move")) };
  if (operation.delete) return { kind: "delete", pageId: contentIdFrom(operation.delete.pageId, `operations[${index}].delete.page_id`) };
  throw AppError.invalidArgument(`operations[${index}]: must be one of create, update, move, delete`);
}

/** Thin transport over the editing use cases: validation of the request's shape, one use case, mapping. */
export function editingServiceImplementation(orm: MikroORM, deps: EditingDeps): AsyncImplementation<typeof EditingServiceService> {
  const em = () => forkEm(orm);
  const pageMapping = { metadata: false };

  return {
    openDraft: async (request) => {
      const draft = await openDraft(
        em(),
        { caller: request.caller, spaceId: request.spaceId, parentRevisionId: request.parentRevisionId, changeRequestId: request.changeRequestId },
        deps,
      );
      return { draft: draftToProto(draft) };
    },

    getDraft: async (request) => ({ draft: draftToProto(await getDraft(em(), { caller: request.caller, draftId: request.draftId }, deps)) }),

    discardDraft: async (request) => {
      await discardDraft(em(), { caller: request.caller, draftId: request.draftId }, deps);
      return {};
    },

    createPage: async (request) => {
      const edited = await createPage(em(), { caller: request.caller, draftId: request.draftId, page: newPageFrom(request.page, field) }, deps);
      return { page: pageToProto(edited.page, edited.path, pageMapping) };
    },

    updatePage: async (request) => {
      const edited = await updatePage(em(), { caller: request.caller, draftId: request.draftId, patch: pagePatchFrom(request.page, field) }, deps);
      return { page: pageToProto(edited.page, edited.path, pageMapping) };
    },

    movePage: async (request) => {
      const edited = await movePage(em(), { caller: request.caller, draftId: request.draftId, move: pageMoveFrom(request.move, field) }, deps);
      return { page: pageToProto(edited.page, edited.path, pageMapping) };
    },

    deletePage: async (request) => {
      const pageId = contentIdFrom(request.pageId, "page_id");
      return { deletedPages: await deletePage(em(), { caller: request.caller, draftId: request.draftId, pageId }, deps) };
    },

    applyPageOperations: async (request) => {
      if (request.operations.length > MAX_OPERATIONS) throw AppError.invalidArgument(`operations: at most ${MAX_OPERATIONS} per call`);
      const operations = request.operations.map(operationFrom);
      const results = await applyPageOperations(em(), { caller: request.caller, draftId: request.draftId, operations }, deps);
      return {
        pages: results.map((result) =>
          "deletedPageId" in result ? Page.fromPartial({ id: result.deletedPageId }) : pageToProto(result.page, result.path, pageMapping),
        ),
      };
    },

    uploadFile: async (request) => {
      const file = await uploadFile(
        em(),
        {
          caller: request.caller,
          draftId: request.draftId,
          fileId: request.fileId,
          name: request.name,
          contentType: request.contentType,
          content: request.content,
        },
        deps,
      );
      return { file: fileToProto(file, deps.signer, deps.clock(), false) };
    },

    deleteFile: async (request) => {
      await deleteFile(em(), { caller: request.caller, draftId: request.draftId, fileId: request.fileId }, deps);
      return {};
    },

    setVariables: async (request) => ({
      variables: await setVariables(em(), { caller: request.caller, draftId: request.draftId, variables: request.variables }, deps),
    }),

    setReusableContent: async (request) => {
      const item = await setReusableContent(
        em(),
        {
          caller: request.caller,
          draftId: request.draftId,
          reusableContentId: request.reusableContentId,
          title: request.title,
          markdown: request.markdown,
          delete: request.delete,
        },
        deps,
      );
      return { reusableContent: item ? reusableToProto(item, false) : undefined };
    },

    commitDraft: async (request) =>
      commitDraft(
        em(),
        {
          caller: request.caller,
          draftId: request.draftId,
          message: request.message,
          moveHead: request.moveHead,
          expectedHeadRevisionId: request.expectedHeadRevisionId,
        },
        deps,
      ),

    updateBranchContent: async (request) => {
      const changes = request.changes.map(contentChangeFrom);
      const update = await updateBranchContent(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, changes },
        deps,
      );
      return {
        revisionId: update.revisionId,
        pages: update.pages.map(affectedPageToProto),
        insertedFiles: update.insertedFiles.map((file) => fileToProto(file, deps.signer, deps.clock(), false)),
      };
    },
  };
}
