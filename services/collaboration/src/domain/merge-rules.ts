import { AppError } from "@imprint/runtime";
import type { ReviewStatus } from "./review.js";

/** A merge rule as identity keeps it on the organization (GitBook's MergeRule). */
export interface MergeRule {
  rule: string;
  userIds: readonly string[];
}

/** What the rules are checked against when `mergerId` merges a change request. */
export interface MergeContext {
  mergerId: string;
  authorId: string;
  subject: string;
  description: string;
  /** The space's content moved since the change request was created or last updated from main. */
  outdated: boolean;
  /** Current reviews (not outdated), one per reviewer at most. */
  reviews: readonly { reviewerId: string; status: ReviewStatus }[];
  /** Users asked to review it. */
  requestedReviewerIds: readonly string[];
}

function refuse(rule: string, why: string): never {
  throw AppError.conflict(`Merge rule "${rule}": the change request ${why} before it can be merged`);
}

/**
 * Checks every rule (type "rules"; "none" checks nothing): a user of `allow_bypass` merges
 * whatever the others say; otherwise the first rule broken is CONFLICT naming it and what it
 * requires. Only current reviews count; an approval is a review with status approved.
 */
export function assertMergeRules(type: string, rules: readonly MergeRule[], context: MergeContext): void {
  if (type !== "rules") return;
  const bypass = rules.find((rule) => rule.rule === "allow_bypass");
  if (bypass?.userIds.includes(context.mergerId)) return;
  const approvers = new Set(context.reviews.filter((review) => review.status === "approved").map((review) => review.reviewerId));
  for (const { rule, userIds } of rules) {
    switch (rule) {
      case "require_specific_reviewers": {
        const missing = userIds.filter((id) => id !== context.authorId && !approvers.has(id));
        if (missing.length > 0) refuse(rule, `requires an approval from each of its reviewers (missing: ${missing.join(", ")})`);
        break;
      }
      case "require_one_of_specific_reviewers":
        if (!userIds.some((id) => approvers.has(id))) refuse(rule, `requires an approval from one of its reviewers (${userIds.join(", ")})`);
        break;
      case "require_at_least_one_review":
        if (context.reviews.length === 0) refuse(rule, "requires a review");
        break;
      case "require_at_least_one_approved_review":
        if (approvers.size === 0) refuse(rule, "requires an approval");
        break;
      case "require_all_reviews_approved": {
        const pending = context.requestedReviewerIds.filter((id) => !approvers.has(id));
        if (context.reviews.some((review) => review.status !== "approved") || pending.length > 0)
          refuse(rule, `requires every review to be approved, by every requested reviewer${pending.length > 0 ? ` (not yet: ${pending.join(", ")})` : ""}`);
        break;
      }
      case "require_up_to_date_change_request":
        if (context.outdated) refuse(rule, "requires to be up to date with the space (update it from main)");
        break;
      case "require_change_request_subject":
        if (context.subject.trim() === "") refuse(rule, "requires a subject");
        break;
      case "require_change_request_description":
        if (context.description.trim() === "") refuse(rule, "requires a description");
        break;
      case "require_author_to_merge":
        if (context.mergerId !== context.authorId) refuse(rule, "requires its author to merge it");
        break;
      default:
        // allow_bypass is read above; a rule identity would not store cannot be checked, so it refuses.
        if (rule !== "allow_bypass") refuse(rule, "names a rule Imprint does not know");
    }
  }
}
