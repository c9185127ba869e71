/**
 * Text every store of ours can hold. PostgreSQL refuses NUL in `text` and `jsonb` (the query fails),
 * and an unpaired UTF-16 surrogate has no UTF-8 form (it would be stored as U+FFFD, silently
 * changing what was sent), so both are refused where input enters.
 */
export function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL characters";
  if (!text.isWellFormed()) return "must not contain unpaired UTF-16 surrogates";
  return undefined;
}
