import { ChangeRequestStatus, type ChangeRequest } from "@imprint/proto/collaboration/v1/change_requests";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";
import { toRestUser, type RestUser } from "./user.js";

export const CHANGE_REQUEST_STATUS_NAMES = ["draft", "open", "archived", "merged"] as const;
export type ChangeRequestStatusName = (typeof CHANGE_REQUEST_STATUS_NAMES)[number];

const STATUS_BY_NAME: Readonly<Record<ChangeRequestStatusName, ChangeRequestStatus>> = {
  draft: ChangeRequestStatus.CHANGE_REQUEST_STATUS_DRAFT,
  open: ChangeRequestStatus.CHANGE_REQUEST_STATUS_OPEN,
  archived: ChangeRequestStatus.CHANGE_REQUEST_STATUS_ARCHIVED,
  merged: ChangeRequestStatus.CHANGE_REQUEST_STATUS_MERGED,
};

export function toProtoChangeRequestStatus(name: ChangeRequestStatusName): ChangeRequestStatus {
  return STATUS_BY_NAME[name];
}

function toRestStatus(status: ChangeRequestStatus): ChangeRequestStatusName {
  const entry = Object.entries(STATUS_BY_NAME).find(([, value]) => value === status);
  // The contract says unspecified never appears in a response; if it does, it is a bug upstream.
  if (!entry) throw new AppError("internal", `upstream answered an unknown change request status ${String(status)}`);
  return entry[0] as ChangeRequestStatusName;
}

export interface RestChangeRequest {
  object: "change-request";
  id: string;
  number: number;
  status: ChangeRequestStatusName;
  subject: string;
  description?: unknown;
  createdBy?: RestUser;
  createdAt: string;
  updatedAt: string;
  mergedAt?: string;
  space: string;
  revision: string;
  revisionInitial: string;
  revisionMergedAncestor?: string;
  revisionMerged?: string;
  comments: number;
  outdated: boolean;
  urls: { app: string; location: string };
}

/** API URL of a change request (also its `Location` when created). */
export function changeRequestLocation(urls: PublicUrls, spaceId: string, changeRequestId: string): string {
  return `${urls.api}/v1/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(changeRequestId)}`;
}

/**
 * GitBook's change request. `description` is GitBook's JSON document of the markdown description;
 * revisions that do not exist yet (merged ancestor, merge) and a creator who no longer exists are
 * left out.
 */
export function toRestChangeRequest(changeRequest: ChangeRequest | undefined, urls: PublicUrls): RestChangeRequest {
  if (!changeRequest) throw new AppError("internal", "upstream answered without a change request");
  const cr = changeRequest;
  const rest: RestChangeRequest = {
    object: "change-request",
    id: cr.id,
    number: cr.number,
    status: toRestStatus(cr.status),
    subject: cr.subject,
    createdAt: (cr.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (cr.updatedAt ?? new Date(0)).toISOString(),
    space: cr.spaceId,
    revision: cr.revisionId,
    revisionInitial: cr.initialRevisionId,
    comments: cr.comments,
    outdated: cr.outdated,
    urls: {
      app: `${urls.app}/o/${encodeURIComponent(cr.organizationId)}/s/${encodeURIComponent(cr.spaceId)}/~/changes/${cr.number}/`,
      location: changeRequestLocation(urls, cr.spaceId, cr.id),
    },
  };
  if (cr.descriptionDocumentJson) rest.description = JSON.parse(cr.descriptionDocumentJson) as unknown;
  if (cr.createdBy) rest.createdBy = toRestUser(cr.createdBy, urls);
  if (cr.mergedAt) rest.mergedAt = cr.mergedAt.toISOString();
  if (cr.mergedAncestorRevisionId) rest.revisionMergedAncestor = cr.mergedAncestorRevisionId;
  if (cr.mergedRevisionId) rest.revisionMerged = cr.mergedRevisionId;
  return rest;
}
