import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, isId, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";

export { isId, requireCaller, type CallerInput };

/** The caller's standing in an organization, for sites: members read them, admins change them. */
export interface OrganizationAccess {
  caller: CallerInput;
  organizationId: string;
  admin: boolean;
  /** The caller's role (what content shows them depends on it). */
  role: MemberRole;
}

export type OrganizationRight = "view" | "admin";

/**
 * The caller's role in the organization, from identity. Someone who is not an enabled member with
 * a role (guests included) cannot see its sites: not_found; a member without the admin role asking
 * to change one: permission_denied.
 */
export async function requireOrganization(
  deps: Pick<UseCaseDeps, "memberships">,
  callerInput: CallerInput | undefined,
  organizationId: string,
  need: OrganizationRight,
): Promise<OrganizationAccess> {
  const caller = requireCaller(callerInput);
  if (!isId(organizationId) || !isId(caller.userId)) throw AppError.notFound("Organization");
  const membership = await deps.memberships.get(organizationId, caller.userId, caller.tokenId);
  if (!membership) throw AppError.notFound("Organization");
  const role = membership.role;
  if (role === MemberRole.MEMBER_ROLE_GUEST || role === MemberRole.MEMBER_ROLE_UNSPECIFIED) throw AppError.notFound("Organization");
  const admin = role === MemberRole.MEMBER_ROLE_ADMIN;
  if (need === "admin" && !admin) throw AppError.permissionDenied("Only organization admins can change sites");
  return { caller, organizationId, admin, role };
}

/** The proto caller for calls to other services. */
export function callerMessage(caller: CallerInput): { userId: string; tokenId: string } {
  return { userId: caller.userId, tokenId: caller.tokenId ?? "" };
}
