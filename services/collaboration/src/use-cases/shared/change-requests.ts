import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, sql } from "@imprint/runtime";
import { ChangeRequest } from "../../domain/change-request.js";
import { isId } from "./access.js";

/** Numbers are positive int4 values: at most 9 digits keeps the parse in range. */
const NUMBER = /^[1-9][0-9]{0,8}$/;

/**
 * The change request of `spaceId` named by `ref`: its id (a uuid) or its number in the space
 * (digits). Anything else, or a change request of another space, is "Change request not found".
 */
export async function findChangeRequest(em: EntityManager, spaceId: string, ref: string, options: { lock?: boolean } = {}): Promise<ChangeRequest> {
  const where = isId(ref) ? { id: ref, spaceId } : NUMBER.test(ref) ? { number: Number(ref), spaceId } : undefined;
  const found = where ? await em.findOne(ChangeRequest, where, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) : null;
  if (!found) throw AppError.notFound("Change request");
  return found;
}

/** Makes `userId` a contributor (no-op when they already are); runs in the caller's transaction. */
export async function addContributor(em: EntityManager, changeRequest: Pick<ChangeRequest, "id" | "spaceId">, userId: string, at: Date): Promise<void> {
  await executeStatement(em, sql`insert into change_request_contributors (change_request_id, user_id, space_id, first_contributed_at) values (${changeRequest.id}, ${userId}, ${changeRequest.spaceId}, ${at})
     on conflict (change_request_id, user_id) do nothing`);
}
