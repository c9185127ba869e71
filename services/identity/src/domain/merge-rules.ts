import { AppError } from "@imprint/runtime";

/** Rules that name users: the specific reviewers (all, or one of them) and who may bypass the others. */
export const USER_MERGE_RULES = ["require_specific_reviewers", "require_one_of_specific_reviewers", "allow_bypass"] as const;

/** Rules that stand alone. */
export const PLAIN_MERGE_RULES = [
  "require_at_least_one_review",
  "require_at_least_one_approved_review",
  "require_all_reviews_approved",
  "require_up_to_date_change_request",
  "require_change_request_subject",
  "require_change_request_description",
  "require_author_to_merge",
] as const;

/** GitBook's rules Imprint cannot check: it has no review agent and no expression language. */
const UNSUPPORTED_MERGE_RULES: Readonly<Record<string, string>> = {
  require_agent_review: "Imprint has no review agent",
  custom: "Imprint does not evaluate custom expressions",
};

export type MergeRuleName = (typeof USER_MERGE_RULES)[number] | (typeof PLAIN_MERGE_RULES)[number];

/** One merge rule as stored on the organization: `users` only for the rules that name users. */
export interface MergeRule {
  rule: MergeRuleName;
  users?: string[];
}

export const MERGE_RULES_MAX = 20;
export const MERGE_RULE_USERS_MAX = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The merge rules of an organization, checked: type `none` (no rule; `rules` must be empty) or
 * `rules` (at most 20, each known, supported and once; the user rules with 1 to 50 user ids,
 * deduplicated). Messages name the field as GitBook's body does (`mergeRules.rules[2].users`).
 */
export function validateMergeRules(
  type: string,
  rules: readonly { rule: string; userIds: readonly string[] }[],
): { type: "none" | "rules"; rules: MergeRule[] } {
  if (type !== "none" && type !== "rules") throw AppError.invalidArgument('mergeRules.type: must be "none" or "rules"');
  if (type === "none") {
    if (rules.length > 0) throw AppError.invalidArgument('mergeRules.rules: must be empty when type is "none"');
    return { type, rules: [] };
  }
  if (rules.length > MERGE_RULES_MAX) throw AppError.invalidArgument(`mergeRules.rules: at most ${MERGE_RULES_MAX} rules`);
  const seen = new Set<string>();
  const checked = rules.map((entry, index): MergeRule => {
    const field = `mergeRules.rules[${index}]`;
    const unsupported = UNSUPPORTED_MERGE_RULES[entry.rule];
    if (unsupported) throw AppError.invalidArgument(`${field}.rule: "${entry.rule}" is not supported (${unsupported})`);
    if (seen.has(entry.rule)) throw AppError.invalidArgument(`${field}.rule: "${entry.rule}" is given twice`);
    seen.add(entry.rule);
    if ((USER_MERGE_RULES as readonly string[]).includes(entry.rule)) {
      const users = [...new Set(entry.userIds)];
      if (users.length === 0 || users.length > MERGE_RULE_USERS_MAX)
        throw AppError.invalidArgument(`${field}.users: must name 1 to ${MERGE_RULE_USERS_MAX} users`);
      const invalid = users.find((id) => !UUID.test(id));
      if (invalid !== undefined) throw AppError.invalidArgument(`${field}.users: "${invalid}" is not a user id`);
      return { rule: entry.rule as MergeRuleName, users: users.map((id) => id.toLowerCase()) };
    }
    if (!(PLAIN_MERGE_RULES as readonly string[]).includes(entry.rule))
      throw AppError.invalidArgument(`${field}.rule: must be one of ${[...USER_MERGE_RULES, ...PLAIN_MERGE_RULES].join(", ")}`);
    if (entry.userIds.length > 0) throw AppError.invalidArgument(`${field}.users: "${entry.rule}" names no users`);
    return { rule: entry.rule as MergeRuleName };
  });
  return { type, rules: checked };
}
