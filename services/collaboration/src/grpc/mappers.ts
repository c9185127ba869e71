import {
  ChangeRequestOrder,
  ChangeRequestStatus as ChangeRequestStatusMessage,
  type ChangeRequest as ChangeRequestMessage,
} from "@imprint/proto/collaboration/v1/change_requests";
import {
  CommentFormat,
  CommentStatus,
  type Comment as CommentMessage,
  type CommentReply as CommentReplyMessage,
  type Reaction as ReactionMessage,
} from "@imprint/proto/collaboration/v1/comments";
import {
  ContributionKind,
  ReviewStatus as ReviewStatusMessage,
  type Contributor as ContributorMessage,
  type RequestedReviewer as RequestedReviewerMessage,
  type Review as ReviewMessage,
} from "@imprint/proto/collaboration/v1/reviews";
import type { User } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime";
import type { ChangeRequestStatus } from "../domain/change-request.js";
import type { ChangeRequestView } from "../use-cases/shared/change-request-views.js";
import type { BodyFormat, CommentView, ReactionView, ReplyView } from "../use-cases/shared/comment-views.js";
import type { ChangeRequestOrder as OrderField } from "../use-cases/list-change-requests.js";
import type { ReviewStatus } from "../domain/review.js";
import type { ContributorView } from "../use-cases/list-contributors.js";
import type { RequestedReviewerView, ReviewView } from "../use-cases/shared/review-views.js";

const STATUS_TO_PROTO: Record<ChangeRequestStatus, ChangeRequestStatusMessage> = {
  draft: ChangeRequestStatusMessage.CHANGE_REQUEST_STATUS_DRAFT,
  open: ChangeRequestStatusMessage.CHANGE_REQUEST_STATUS_OPEN,
  archived: ChangeRequestStatusMessage.CHANGE_REQUEST_STATUS_ARCHIVED,
  merged: ChangeRequestStatusMessage.CHANGE_REQUEST_STATUS_MERGED,
};

/** A status from the wire: undefined for unspecified; an unknown number is a caller error. */
export function statusFromProto(status: ChangeRequestStatusMessage | undefined): ChangeRequestStatus | undefined {
  if (status === undefined || status === ChangeRequestStatusMessage.CHANGE_REQUEST_STATUS_UNSPECIFIED) return undefined;
  const entry = Object.entries(STATUS_TO_PROTO).find(([, value]) => value === status);
  if (!entry) throw AppError.invalidArgument("status: must be draft, open, archived or merged");
  return entry[0] as ChangeRequestStatus;
}

/** Statuses from the wire (a list filter): unspecified entries are dropped; an unknown number is a caller error. */
export function statusesFromProto(statuses: readonly ChangeRequestStatusMessage[]): ChangeRequestStatus[] {
  return statuses.map((status) => statusFromProto(status)).filter((status): status is ChangeRequestStatus => status !== undefined);
}

export function orderFromProto(order: ChangeRequestOrder): OrderField | undefined {
  switch (order) {
    case ChangeRequestOrder.CHANGE_REQUEST_ORDER_UNSPECIFIED:
      return undefined;
    case ChangeRequestOrder.CHANGE_REQUEST_ORDER_UPDATED_AT:
      return "updatedAt";
    case ChangeRequestOrder.CHANGE_REQUEST_ORDER_CREATED_AT:
      return "createdAt";
    default:
      throw AppError.invalidArgument("orderBy: must be updatedAt or createdAt");
  }
}

export function commentStatusFromProto(status: CommentStatus): "open" | "resolved" | undefined {
  switch (status) {
    case CommentStatus.COMMENT_STATUS_UNSPECIFIED:
      return undefined;
    case CommentStatus.COMMENT_STATUS_OPEN:
      return "open";
    case CommentStatus.COMMENT_STATUS_RESOLVED:
      return "resolved";
    default:
      throw AppError.invalidArgument("status: must be all, open or resolved");
  }
}

/** The document form is the default (GitBook answers both when no format is asked for). */
export function formatFromProto(format: CommentFormat): BodyFormat {
  switch (format) {
    case CommentFormat.COMMENT_FORMAT_UNSPECIFIED:
    case CommentFormat.COMMENT_FORMAT_DOCUMENT:
      return "document";
    case CommentFormat.COMMENT_FORMAT_MARKDOWN:
      return "markdown";
    default:
      throw AppError.invalidArgument("format: must be document or markdown");
  }
}

export function changeRequestToProto({ changeRequest, branch, createdBy, openComments, descriptionDocumentJson }: ChangeRequestView): ChangeRequestMessage {
  return {
    id: changeRequest.id,
    spaceId: changeRequest.spaceId,
    organizationId: changeRequest.organizationId,
    number: changeRequest.number,
    status: STATUS_TO_PROTO[changeRequest.status],
    subject: changeRequest.subject,
    description: changeRequest.description,
    createdBy,
    createdAt: changeRequest.createdAt,
    updatedAt: changeRequest.updatedAt,
    revisionId: branch?.headRevisionId ?? "",
    initialRevisionId: branch?.initialRevisionId ?? "",
    mergedAncestorRevisionId: branch?.mergedAncestorRevisionId ?? "",
    // This service records the merge revision as content reported it, even before content's branch read shows it.
    mergedRevisionId: changeRequest.mergedRevisionId ?? branch?.mergedRevisionId ?? "",
    comments: openComments,
    outdated: changeRequest.status !== "merged" && (branch?.outdated ?? false),
    agentTaskId: changeRequest.agentTaskId ?? "",
    mergedAt: changeRequest.mergedAt ?? undefined,
    descriptionDocumentJson,
  };
}

function reactionsToProto(reactions: ReactionView[], users: ReadonlyMap<string, User>): ReactionMessage[] {
  return reactions.map((reaction) => ({
    emoji: reaction.emoji,
    users: reaction.users.map((entry) => ({ user: users.get(entry.userId), reactedAt: entry.reactedAt })),
  }));
}

export function commentToProto(view: CommentView): CommentMessage {
  const { comment, users } = view;
  return {
    id: comment.id,
    spaceId: comment.spaceId,
    changeRequestId: comment.changeRequestId ?? "",
    organizationId: comment.organizationId,
    postedBy: users.get(comment.authorId),
    postedAt: comment.postedAt,
    editedAt: comment.editedAt ?? undefined,
    reactions: reactionsToProto(view.reactions, users),
    replies: comment.repliesCount,
    body: view.body,
    target: {
      nodeId: comment.nodeId ?? "",
      nodePreview: comment.nodePreview ?? "",
      page: view.page,
      revisionId: comment.revisionId ?? "",
    },
    permissions: view.permissions,
    status: comment.resolvedAt ? CommentStatus.COMMENT_STATUS_RESOLVED : CommentStatus.COMMENT_STATUS_OPEN,
    resolvedAt: comment.resolvedAt ?? undefined,
    resolvedBy: comment.resolvedBy ? users.get(comment.resolvedBy) : undefined,
    changeRequestNumber: view.changeRequestNumber,
    repliers: view.repliers.map((replier) => ({ user: users.get(replier.userId), count: replier.count, lastRepliedAt: replier.lastRepliedAt })),
  };
}

export function replyToProto(view: ReplyView): CommentReplyMessage {
  const { reply, users } = view;
  return {
    id: reply.id,
    commentId: reply.commentId,
    postedBy: users.get(reply.authorId),
    postedAt: reply.postedAt,
    editedAt: reply.editedAt ?? undefined,
    reactions: reactionsToProto(view.reactions, users),
    body: view.body,
    permissions: view.permissions,
    spaceId: reply.spaceId,
    changeRequestId: reply.changeRequestId ?? "",
  };
}

const REVIEW_STATUS_TO_PROTO: Record<ReviewStatus, ReviewStatusMessage> = {
  approved: ReviewStatusMessage.REVIEW_STATUS_APPROVED,
  "changes-requested": ReviewStatusMessage.REVIEW_STATUS_CHANGES_REQUESTED,
};

/** A review status from the wire: undefined for unspecified or unknown (the use case refuses it, naming the field). */
export function reviewStatusFromProto(status: ReviewStatusMessage): ReviewStatus | undefined {
  return (Object.entries(REVIEW_STATUS_TO_PROTO) as [ReviewStatus, ReviewStatusMessage][]).find(([, value]) => value === status)?.[0];
}

export function requestedReviewerToProto(view: RequestedReviewerView): RequestedReviewerMessage {
  return { user: view.user, requestedBy: view.requestedBy, revisionId: view.request.revisionId, requestedAt: view.request.requestedAt };
}

export function reviewToProto(view: ReviewView): ReviewMessage {
  const { review } = view;
  return {
    id: review.id,
    spaceId: review.spaceId,
    changeRequestId: review.changeRequestId,
    revisionId: review.revisionId,
    reviewer: view.reviewer,
    requestedBy: view.requestedBy,
    status: REVIEW_STATUS_TO_PROTO[review.status],
    outdated: review.outdated,
    comment: view.comment ? commentToProto(view.comment) : undefined,
    createdAt: review.createdAt,
    updatedAt: review.updatedAt,
  };
}

export function contributorToProto(view: ContributorView): ContributorMessage {
  return {
    user: view.user,
    kind: view.kind === "edit" ? ContributionKind.CONTRIBUTION_KIND_EDIT : ContributionKind.CONTRIBUTION_KIND_COMMENT,
    count: view.count,
    updatedAt: view.updatedAt,
  };
}
