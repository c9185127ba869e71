import type { EntityManager } from "@mikro-orm/postgresql";
import type { MergeRules } from "@imprint/proto/identity/v1/organizations";
import { assertMergeRules } from "../../domain/merge-rules.js";
import type { ChangeRequest } from "../../domain/change-request.js";
import { RequestedReviewer, Review } from "../../domain/review.js";
import { callerMessage, type CallerInput, type SpaceAccess } from "./access.js";
import { readBranch } from "./change-request-views.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Checks the merge rules that apply to the change request's space against its current reviews,
 * requested reviewers and branch: CONFLICT naming the first rule broken. The space's own rules
 * (content's, read with its access) take the organization's place unless their type is
 * "inherit"; then the organization's apply (identity's, read as the merger sees the organization).
 * Type "none" asks nothing more.
 */
export async function requireMergeRules(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "identity" | "content">,
  caller: CallerInput,
  space: SpaceAccess,
  changeRequest: ChangeRequest,
): Promise<void> {
  const mergeRules = space.mergeRules.type === "inherit" ? await organizationMergeRules(deps, caller, space) : space.mergeRules;
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

async function organizationMergeRules(deps: Pick<UseCaseDeps, "identity">, caller: CallerInput, space: SpaceAccess): Promise<MergeRules | undefined> {
  const { organization } = await deps.identity.organizations.getOrganization({ caller: callerMessage(caller), organizationId: space.organizationId });
  return organization?.mergeRules;
}
