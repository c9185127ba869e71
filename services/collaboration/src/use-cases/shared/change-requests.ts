import { type EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, findOwned, sql } from "@imprint/runtime";
import { ChangeRequest } from "../../domain/change-request.js";

/** Numbers are positive int4 values: at most 9 digits keeps the parse in range. */
const NUMBER = /^[1-9][0-9]{0,8}$/;

/**
 * The change request of `spaceId` named by `ref`: its id (a uuid) or its number in the space
 * (digits). Anything else, or a change request of another space, is "Change request not found".
 */
export async function findChangeRequest(em: EntityManager, spaceId: string, ref: string, options: { lock?: boolean } = {}): Promise<ChangeRequest> {
  if (!NUMBER.test(ref)) return findOwned(em, ChangeRequest, { spaceId }, ref, options);
  const byNumber = await em.findOne(ChangeRequest, { number: Number(ref), spaceId }, { fields: ["id"] });
  return findOwned(em, ChangeRequest, { spaceId }, byNumber?.id ?? "", options);
}

/**
 * Makes `userId` a contributor, or moves their latest contribution to `at` when later (the greater
 * time wins, so any delivery order of commits ends the same); runs in the caller's transaction.
 */
export async function addContributor(em: EntityManager, changeRequest: Pick<ChangeRequest, "id" | "spaceId">, userId: string, at: Date): Promise<void> {
  await executeStatement(
    em,
    sql`insert into change_request_contributors (change_request_id, user_id, space_id, first_contributed_at, last_contributed_at)
     values (${changeRequest.id}, ${userId}, ${changeRequest.spaceId}, ${at}, ${at})
     on conflict (change_request_id, user_id) do update
       set last_contributed_at = greatest(coalesce(change_request_contributors.last_contributed_at, change_request_contributors.first_contributed_at), excluded.last_contributed_at)`,
  );
}
