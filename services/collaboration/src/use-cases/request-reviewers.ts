import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { validateDescription, validateSubject } from "../domain/change-request.js";
import { markdownOfDocument } from "../domain/documents.js";
import { assertNotAuthor, assertReviewable, RequestedReviewer, Review, validateReviewerIds } from "../domain/review.js";
import { changeRequestReviewersRequested, changeRequestUpdated, spaceEventPayload } from "../events.js";
import { isId, requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { readBranch } from "./shared/change-request-views.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { requestedReviewerViews, type RequestedReviewerView } from "./shared/review-views.js";
import { loadUsers } from "./shared/users.js";

export interface RequestReviewersInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
  userIds: readonly string[];
  /** A new subject, or undefined to leave it. */
  subject: string | undefined;
  /** A new description (markdown), or undefined to leave it. */
  description: string | undefined;
  /** A new description as GitBook's JSON document (JSON text), taking the place of `description`; "" for none. */
  descriptionDocumentJson: string;
}

/**
 * Asks members of the organization to review a change request (its author excepted), optionally
 * changing its subject and description in the same transaction (`change_request.updated`). A user
 * asked before is asked again: the request moves to now and the current revision, and their
 * earlier reviews become outdated. Records `change_request.reviewers_requested`.
 */
export async function requestReviewers(em: EntityManager, input: RequestReviewersInput, deps: UseCaseDeps): Promise<RequestedReviewerView[]> {
  const caller = requireCaller(input.caller);
  const userIds = validateReviewerIds(input.userIds, isId);
  const fields = {
    subject: input.subject === undefined ? undefined : validateSubject(input.subject),
    description: input.descriptionDocumentJson
      ? validateDescription(markdownOfDocument("description", input.descriptionDocumentJson))
      : input.description === undefined
        ? undefined
        : validateDescription(input.description),
  };
  const space = await requireSpace(deps, caller, input.spaceId, "edit");
  const before = await findChangeRequest(em.fork(), space.spaceId, input.changeRequestId);
  assertReviewable(before, "be reviewed");
  for (const userId of userIds) assertNotAuthor(before, userId, "asked");
  // Who is asked, the revision and the users of the answer are read before the commit: once the
  // requests are saved, nothing may fail.
  const [{ members }, branch, users] = await Promise.all([
    deps.identity.members.batchGetMembers({ organizationId: space.organizationId, userIds }),
    readBranch(deps, caller, before),
    loadUsers(deps, [...userIds, caller.userId]),
  ]);
  const memberIds = new Set(members.filter((member) => !member.disabled).map((member) => member.user?.id));
  const outsider = userIds.find((userId) => !memberIds.has(userId));
  if (outsider !== undefined) throw AppError.invalidArgument(`users: "${outsider}" is not a member of the organization`);
  const revisionId = branch?.headRevisionId ?? "";

  const requests = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findChangeRequest(tx, space.spaceId, input.changeRequestId, { lock: true });
    assertReviewable(found, "be reviewed");
    const now = deps.clock();
    const event = { organizationId: found.organizationId, actor: caller };
    const changes = found.update(fields, () => now);
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, changeRequestUpdated, {
        ...event,
        payload: await spaceEventPayload(tx, found.spaceId, { changeRequestId: found.id, number: found.number, changedFields: Object.keys(changes), changes }),
      });
    }
    const requests: RequestedReviewer[] = [];
    for (const userId of userIds) {
      requests.push(
        await tx.upsert(RequestedReviewer, {
          changeRequestId: found.id,
          userId,
          spaceId: found.spaceId,
          requestedBy: caller.userId,
          revisionId,
          requestedAt: now,
        }),
      );
    }
    const superseded = await tx.find(Review, { changeRequestId: found.id, reviewerId: { $in: userIds }, outdated: false });
    for (const review of superseded) review.markOutdated(now);
    recordEvent(tx, changeRequestReviewersRequested, {
      ...event,
      payload: await spaceEventPayload(tx, found.spaceId, { changeRequestId: found.id, number: found.number, userIds, revisionId }),
    });
    return requests;
  });
  return requestedReviewerViews(deps, requests, users);
}
