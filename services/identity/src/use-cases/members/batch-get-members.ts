import type { EntityManager } from "@mikro-orm/postgresql";
import { isInstallationPrincipal } from "../../domain/user.js";
import type { MemberData } from "../shared/views.js";
import { batchIds } from "../shared/batch.js";
import { findMembersOfUsers } from "../shared/hot-path-queries.js";
import { isId } from "../shared/validation.js";
import type { UseCaseDeps } from "../../deps.js";

export interface BatchGetMembersInput {
  organizationId: string;
  userIds: readonly string[];
}

/**
 * Memberships of the given users in an organization (e.g. the people who commented on a space),
 * in request order; users who are not members, and installation principals, are left out.
 * Internal, so no caller.
 */
export async function batchGetMembers(em: EntityManager, input: BatchGetMembersInput, _deps: UseCaseDeps): Promise<MemberData[]> {
  const ids = batchIds("user_ids", input.userIds);
  // A malformed organization id names no organization: nobody is a member of it.
  if (!isId(input.organizationId)) return [];
  const members = await findMembersOfUsers(em, input.organizationId, ids);
  const byUser = new Map(members.filter((member) => !isInstallationPrincipal(member.user)).map((member) => [member.user.id, member]));
  return ids.flatMap((id) => byUser.get(id) ?? []);
}
