import { AppError } from "@imprint/runtime";

/** Rules that name users: the specific reviewers (all, or one of them) and who may bypass the others. */
const USER_MERGE_RULES: readonly string[] = ["require_specific_reviewers", "require_one_of_specific_reviewers", "allow_bypass"];

/** Rules that stand alone. */
const PLAIN_MERGE_RULES: readonly string[] = [
  "require_at_least_one_review",
  "require_at_least_one_approved_review",
  "require_all_reviews_approved",
  "require_up_to_date_change_request",
  "require_change_request_subject",
  "require_change_request_description",
  "require_author_to_merge",
];

/** GitBook's rules Imprint cannot check (as the organization's refuse them too): no review agent, no expression language. */
const UNSUPPORTED_MERGE_RULES: Readonly<Record<string, string>> = {
  require_agent_review: "Imprint has no review agent",
  custom: "Imprint does not evaluate custom expressions",
};

export const SPACE_MERGE_RULES_MAX = 20;
export const SPACE_MERGE_RULE_USERS_MAX = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One merge rule as the space keeps it: `users` only for the rules that name users. */
export interface SpaceMergeRule {
  rule: string;
  users?: string[];
}

/** A space's own merge rules (GitBook's MergeRulesStandaloneConfiguration); a space without them inherits its organization's. */
export interface SpaceMergeRules {
  type: "none" | "rules";
  rules: SpaceMergeRule[];
}

/**
 * The merge rules of a space, checked: `inherit` (null: the organization's apply), `none` (no
 * rule; `rules` must be empty) or `rules` (at most 20, each known, supported and once; the user
 * rules with 1 to 50 user ids, deduplicated). The same vocabulary and limits as identity's rules
 * of an organization, which collaboration checks the same way; messages name the field as
 * GitBook's body does (`mergeRules.rules[2].users`).
 */
export function validateSpaceMergeRules(type: string, rules: readonly { rule: string; userIds: readonly string[] }[]): SpaceMergeRules | null {
  if (type !== "inherit" && type !== "none" && type !== "rules") throw AppError.invalidArgument('mergeRules.type: must be "inherit", "none" or "rules"');
  if (type !== "rules") {
    if (rules.length > 0) throw AppError.invalidArgument(`mergeRules.rules: must be empty when type is "${type}"`);
    return type === "inherit" ? null : { type, rules: [] };
  }
  if (rules.length > SPACE_MERGE_RULES_MAX) throw AppError.invalidArgument(`mergeRules.rules: at most ${SPACE_MERGE_RULES_MAX} rules`);
  const seen = new Set<string>();
  const checked = rules.map((entry, index): SpaceMergeRule => {
    const field = `mergeRules.rules[${index}]`;
    const unsupported = UNSUPPORTED_MERGE_RULES[entry.rule];
    if (unsupported) throw AppError.invalidArgument(`${field}.rule: "${entry.rule}" is not supported (${unsupported})`);
    if (seen.has(entry.rule)) throw AppError.invalidArgument(`${field}.rule: "${entry.rule}" is given twice`);
    seen.add(entry.rule);
    if (USER_MERGE_RULES.includes(entry.rule)) {
      const users = [...new Set(entry.userIds.map((id) => id.toLowerCase()))];
      if (users.length === 0 || users.length > SPACE_MERGE_RULE_USERS_MAX)
        throw AppError.invalidArgument(`${field}.users: must name 1 to ${SPACE_MERGE_RULE_USERS_MAX} users`);
      const invalid = users.find((id) => !UUID.test(id));
      if (invalid !== undefined) throw AppError.invalidArgument(`${field}.users: "${invalid}" is not a user id`);
      return { rule: entry.rule, users };
    }
    if (!PLAIN_MERGE_RULES.includes(entry.rule))
      throw AppError.invalidArgument(`${field}.rule: must be one of ${[...USER_MERGE_RULES, ...PLAIN_MERGE_RULES].join(", ")}`);
    if (entry.userIds.length > 0) throw AppError.invalidArgument(`${field}.users: "${entry.rule}" names no users`);
    return { rule: entry.rule };
  });
  return { type, rules: checked };
}
