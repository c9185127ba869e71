import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireCaller, roleName, organizationStanding } from "@imprint/runtime";
import { signMemberToken } from "../../domain/member-visitor-token.js";
import { Site } from "../../domain/site.js";
import type { UseCaseDeps } from "../../deps.js";
import type { CallerInput } from "../shared/access.js";
import { callerMessage } from "../shared/access.js";
import { organizationVisitorKey } from "../shared/visitor-keys.js";

/**
 * The caller's member visitor token for the organization (the ping's `serviceVisitorClaims`): ""
 * while the organization has no site, and for anyone who is not a member with a role (a guest, a
 * disabled member, an outsider), so the ping answers as before for them.
 */
export async function issueMemberVisitorToken(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string },
  deps: UseCaseDeps,
): Promise<string> {
  const caller = requireCaller(input.caller);
  const standing = await organizationStanding(deps, caller, input.organizationId);
  const role = standing.member && standing.role !== null ? roleName(standing.role) : undefined;
  if (!role) return "";
  if ((await em.count(Site, { organizationId: input.organizationId })) === 0) return "";
  const { user } = await deps.identity.users.getUser({ caller: callerMessage(caller), userId: "" });
  if (!user) throw new AppError("internal", "identity answered without the caller");
  const key = await organizationVisitorKey(em, deps, input.organizationId);
  return signMemberToken(key, input.organizationId, { userId: caller.userId, email: user.email, role, teams: [] }, deps.clock());
}
