import { forkEm, pageInfo, pageRequest, sortDirectionFromProto, type AsyncImplementation } from "@imprint/runtime";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { createSpace } from "../use-cases/create-space.js";
import { deleteSpace } from "../use-cases/delete-space.js";
import { duplicateSpace } from "../use-cases/duplicate-space.js";
import { getSpace } from "../use-cases/get-space.js";
import { listMemberSpaces } from "../use-cases/list-member-spaces.js";
import { batchGetSpaces } from "../use-cases/batch-get-spaces.js";
import { listReadableSpaceIds } from "../use-cases/list-readable-space-ids.js";
import { listSpaces } from "../use-cases/list-spaces.js";
import { moveSpace } from "../use-cases/move-space.js";
import { purgeDeletedSpaces } from "../use-cases/purge-deleted-spaces.js";
import { restoreSpace } from "../use-cases/restore-space.js";
import { transferSpace } from "../use-cases/transfer-space.js";
import { updateSpace } from "../use-cases/update-space.js";
import { editModeFromProto, levelFromProto, levelToProto, parentFromProto, positionFromProto, spaceToProto, visibilityFromProto } from "./space-mappers.js";
import type { SpaceServiceDeps } from "../../deps.js";

export const SPACE_SERVICE_NAME = "imprint.content.v1.SpaceService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager and maps the result to proto messages. Rules live in the use cases.
 */
export function spaceServiceImplementation(deps: SpaceServiceDeps): AsyncImplementation<typeof SpaceServiceService> {
  const em = () => forkEm(deps.orm);

  return {
    createSpace: async (request) => {
      const view = await createSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          title: request.title,
          emoji: request.emoji,
          parentId: request.parentId || null,
          editMode: editModeFromProto(request.editMode),
          language: request.language ?? "",
        },
        deps,
      );
      return { space: spaceToProto(view) };
    },

    listSpaces: async (request) => {
      const page = await listSpaces(em(), { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) }, deps);
      return { spaces: page.items.map(spaceToProto), page: pageInfo(page) };
    },

    listReadableSpaceIds: async (request) => {
      const spaceIds = await listReadableSpaceIds(em(), { caller: request.caller, organizationId: request.organizationId }, deps);
      return { spaceIds };
    },

    batchGetSpaces: async (request) => {
      const views = await batchGetSpaces(em(), { caller: request.caller, organizationId: request.organizationId, spaceIds: request.spaceIds }, deps);
      return { spaces: views.map(spaceToProto) };
    },

    getSpace: async (request) => {
      const view = await getSpace(em(), { caller: request.caller, spaceId: request.spaceId, shareKey: request.shareKey }, deps);
      return { space: { ...spaceToProto(view), gitSync: view.gitSync } };
    },

    updateSpace: async (request) => {
      const view = await updateSpace(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          updateMask: request.updateMask,
          title: request.title,
          emoji: request.emoji,
          editMode: editModeFromProto(request.editMode),
          defaultLevel: levelFromProto(request.defaultLevel),
          visibility: visibilityFromProto(request.visibility),
          mergeRules: request.mergeRules,
          language: request.language ?? "",
        },
        deps,
      );
      return { space: spaceToProto(view) };
    },

    deleteSpace: async (request) => {
      await deleteSpace(em(), { caller: request.caller, spaceId: request.spaceId }, deps);
      return {};
    },

    restoreSpace: async (request) => {
      const view = await restoreSpace(em(), { caller: request.caller, spaceId: request.spaceId }, deps);
      return { space: spaceToProto(view) };
    },

    duplicateSpace: async (request) => {
      const view = await duplicateSpace(em(), { caller: request.caller, spaceId: request.spaceId }, deps);
      return { space: spaceToProto(view) };
    },

    moveSpace: async (request) => {
      const view = await moveSpace(
        em(),
        { caller: request.caller, spaceId: request.spaceId, parent: parentFromProto(request.parent), position: positionFromProto(request.position) },
        deps,
      );
      return { space: spaceToProto(view) };
    },

    transferSpace: async (request) => {
      const view = await transferSpace(
        em(),
        { caller: request.caller, spaceId: request.spaceId, organizationId: request.organizationId, parentId: request.parent?.collectionId || null },
        deps,
      );
      return { space: spaceToProto(view) };
    },

    listMemberSpaces: async (request) => {
      const order = sortDirectionFromProto(request.order);
      const page = await listMemberSpaces(
        em(),
        { caller: request.caller, organizationId: request.organizationId, userId: request.userId, page: pageRequest(request.page), order },
        deps,
      );
      return {
        items: page.items.map((item) => ({ level: levelToProto(item.level), space: spaceToProto(item) })),
        page: pageInfo(page),
      };
    },

    purgeDeletedSpaces: async () => {
      const { spaceIds } = await purgeDeletedSpaces(em(), deps);
      return { spaceIds };
    },
  };
}
