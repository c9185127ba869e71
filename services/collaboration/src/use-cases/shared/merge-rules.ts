import type { EntityManager } from "@mikro-orm/postgresql";
import { assertMergeRules } from "../../domain/merge-rules.js";
import type { ChangeRequest } from "../../domain/change-request.js";
import { RequestedReviewer, Review } from "../../domain/review.js";
import { callerMessage, type CallerInput, type SpaceAccess } from "./access.js";
import { readBranch } from "./change-request-views.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Checks the organization's merge rules (identity's, read as the merger sees the organization)
 * against the change request's current reviews, requested reviewers and branch: CONFLICT naming
 * the first rule broken. Type "none" asks nothing more.
 */
export async function requireMergeRules(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "identity" | "content">,
  caller: CallerInput,
  space: SpaceAccess,
  changeRequest: ChangeRequest,
): Promise<void> {
  const { organization } = await deps.identity.organizations.getOrganization({ caller: callerMessage(caller), organizationId: space.organizationId });
  const mergeRules = organization?.mergeRules;
  if (mergeRules?.type !== "rules" || mergeRules.rules.length === 0) return;
  const needsBranch = mergeRules.rules.some((rule) => rule.rule === "require_up_to_date_change_request");
  const [reviews, requested, branch] = await Promise.all([
    em.find(Review, { changeRequestId: changeRequest.id, outdated: false }, { fields: ["reviewerId", "status"] }),
    em.find(RequestedReviewer, { changeRequestId: changeRequest.id }, { fields: ["userId"] }),
    needsBranch ? readBranch(deps, caller, changeRequest) : Promise.resolve(undefined),
  ]);
  assertMergeRules(mergeRules.type, mergeRules.rules, {
    mergerId: caller.userId,
    authorId: changeRequest.createdBy,
    subject: changeRequest.subject,
    description: changeRequest.description,
    outdated: branch?.outdated ?? false,
    reviews,
    requestedReviewerIds: requested.map((request) => request.userId),
  });
}
