import type { User } from "@imprint/proto/identity/v1";
import type { UseCaseDeps } from "../../deps.js";

/** Identity answers at most this many ids per batch call. */
const BATCH = 1000;

/**
 * Users by id from identity: one call per 1000 distinct ids (one call for any page of a list
 * short of huge reaction counts). Unknown users (deleted since) are simply absent.
 */
export async function loadUsers(deps: Pick<UseCaseDeps, "identity">, ids: Iterable<string | null | undefined>): Promise<ReadonlyMap<string, User>> {
  const distinct = [...new Set([...ids].filter((id): id is string => typeof id === "string" && id !== ""))];
  const chunks: string[][] = [];
  for (let index = 0; index < distinct.length; index += BATCH) chunks.push(distinct.slice(index, index + BATCH));
  const answers = await Promise.all(chunks.map((userIds) => deps.identity.users.batchGetUsers({ userIds })));
  return new Map(answers.flatMap((answer) => answer.users.map((user) => [user.id, user] as const)));
}

/**
 * `known` with the users of `ids` it lacks, asked of identity after a write committed: when identity
 * cannot answer, they are left out (a reaction by someone who reacted meanwhile) rather than failing
 * a write that is already saved. Users an answer cannot do without are read before the commit.
 */
export async function withMissingUsers(
  deps: Pick<UseCaseDeps, "identity">,
  known: ReadonlyMap<string, User>,
  ids: Iterable<string | null | undefined>,
): Promise<ReadonlyMap<string, User>> {
  const missing = [...ids].filter((id): id is string => typeof id === "string" && id !== "" && !known.has(id));
  if (missing.length === 0) return known;
  const loaded = await loadUsers(deps, missing).catch(() => new Map<string, User>());
  return new Map([...known, ...loaded]);
}
