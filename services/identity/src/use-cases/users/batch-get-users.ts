import type { EntityManager } from "@mikro-orm/postgresql";
import { User } from "../../domain/user.js";
import type { UserData } from "../shared/views.js";
import { batchIds } from "../shared/batch.js";
import type { UseCaseDeps } from "../../deps.js";

export interface BatchGetUsersInput {
  userIds: readonly string[];
}

/**
 * Users by id, for services that show who did something (authors of change requests and
 * comments): internal, so no caller. Unknown ids are left out; the rest keep request order.
 */
export async function batchGetUsers(em: EntityManager, input: BatchGetUsersInput, _deps: UseCaseDeps): Promise<UserData[]> {
  const ids = batchIds("user_ids", input.userIds);
  if (ids.length === 0) return [];
  const users = await em.find(User, { id: { $in: ids } }, { fields: ["id", "email", "displayName", "photoUrl"] });
  const byId = new Map(users.map((user) => [user.id, user]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
