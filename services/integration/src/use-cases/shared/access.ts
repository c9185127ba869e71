import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, isId, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";

export { isId, requireCaller, type CallerInput };

/** The caller's role in an organization; null when not an enabled member with a role (guests count as none). */
export async function roleIn(deps: Pick<UseCaseDeps, "memberships">, caller: CallerInput, organizationId: string): Promise<MemberRole | null> {
  if (!isId(organizationId) || !isId(caller.userId)) return null;
  const membership = await deps.memberships.get(organizationId, caller.userId, caller.tokenId);
  if (!membership) return null;
  const role = membership.role;
  return role === MemberRole.MEMBER_ROLE_GUEST || role === MemberRole.MEMBER_ROLE_UNSPECIFIED ? null : role;
}

/** The caller's standing in one organization. */
export interface Standing {
  member: boolean;
  admin: boolean;
}

export async function standingIn(deps: Pick<UseCaseDeps, "memberships">, caller: CallerInput, organizationId: string): Promise<Standing> {
  const role = await roleIn(deps, caller, organizationId);
  return { member: role !== null, admin: role === MemberRole.MEMBER_ROLE_ADMIN };
}

/** The proto caller for calls to other services. */
export function callerMessage(caller: CallerInput): { userId: string; tokenId: string } {
  return { userId: caller.userId, tokenId: caller.tokenId ?? "" };
}

/** Admin of the organization, else permission_denied (a member) or not_found (anyone else). */
export async function requireAdminOf(deps: Pick<UseCaseDeps, "memberships">, caller: CallerInput, organizationId: string, action: string): Promise<void> {
  const standing = await standingIn(deps, caller, organizationId);
  if (!standing.member) throw AppError.notFound("Organization");
  if (!standing.admin) throw AppError.permissionDenied(`Only organization admins can ${action}`);
}
