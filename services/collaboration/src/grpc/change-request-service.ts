import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { createChangeRequest } from "../use-cases/create-change-request.js";
import { getChangeRequest } from "../use-cases/get-change-request.js";
import { listChangeRequests } from "../use-cases/list-change-requests.js";
import { listOrganizationChangeRequests } from "../use-cases/list-organization-change-requests.js";
import { mergeChangeRequest } from "../use-cases/merge-change-request.js";
import { updateChangeRequest } from "../use-cases/update-change-request.js";
import { updateChangeRequestContent } from "../use-cases/update-change-request-content.js";
import { updateChangeRequestFromMain } from "../use-cases/update-change-request-from-main.js";
import { changeRequestToProto, orderFromProto, statusesFromProto, statusFromProto } from "./mappers.js";
import { announceSpaceCounters } from "../use-cases/announce-space-counters.js";

export const CHANGE_REQUEST_SERVICE_NAME = "imprint.collaboration.v1.ChangeRequestService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function changeRequestServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof ChangeRequestServiceService> {
  return {
    announceSpaceCounters: async (request) => ({ spaces: await announceSpaceCounters(em(), { spaceId: request.spaceId }, deps) }),

    createChangeRequest: async (request) => {
      const view = await createChangeRequest(
        em(),
        { caller: request.caller, spaceId: request.spaceId, subject: request.subject, agentTaskId: request.agentTaskId },
        deps,
      );
      return { changeRequest: changeRequestToProto(view) };
    },

    listChangeRequests: async (request) => {
      const page = await listChangeRequests(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          status: statusFromProto(request.status),
          creatorUserId: request.creatorUserId,
          contributorUserId: request.contributorUserId,
          requestedReviewerUserId: request.requestedReviewerUserId,
          orderBy: orderFromProto(request.orderBy),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { changeRequests: page.items.map(changeRequestToProto), page: pageInfo(page) };
    },

    getChangeRequest: async (request) => {
      const view = await getChangeRequest(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      return { changeRequest: changeRequestToProto(view) };
    },

    updateChangeRequest: async (request) => {
      const view = await updateChangeRequest(
        em(),
        {
          caller: request.caller,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          updateMask: request.updateMask,
          subject: request.subject,
          description: request.description,
          status: statusFromProto(request.status),
        },
        deps,
      );
      return { changeRequest: changeRequestToProto(view) };
    },

    mergeChangeRequest: async (request) => {
      const merged = await mergeChangeRequest(em(), { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId }, deps);
      return { revisionId: merged.revisionId, changeRequest: changeRequestToProto(merged.view) };
    },

    updateChangeRequestFromMain: async (request) => {
      const updated = await updateChangeRequestFromMain(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId },
        deps,
      );
      return { revisionId: updated.revisionId, changeRequest: changeRequestToProto(updated.view) };
    },

    listOrganizationChangeRequests: async (request) => {
      const page = await listOrganizationChangeRequests(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          statuses: statusesFromProto(request.statuses),
          creatorUserId: request.creatorUserId,
          contributorUserId: request.contributorUserId,
          spaceId: request.spaceId,
          orderBy: orderFromProto(request.orderBy),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { changeRequests: page.items.map(changeRequestToProto), page: pageInfo(page) };
    },
    updateChangeRequestContent: async (request) => {
      const updated = await updateChangeRequestContent(
        em(),
        { caller: request.caller, spaceId: request.spaceId, changeRequestId: request.changeRequestId, changes: request.changes },
        deps,
      );
      return {
        changeRequest: changeRequestToProto(updated.view),
        revisionId: updated.revisionId,
        pages: updated.pages,
        insertedFiles: updated.insertedFiles,
      };
    },
  };
}
