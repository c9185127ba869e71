import { MemberRole } from "@imprint/proto/identity/v1";
import { isId, requireCaller, type CallerInput } from "../caller.js";
import { AppError } from "../errors.js";
import type { OrganizationRole } from "./memberships.js";

/** Where a service reads organization roles: its MembershipCache (identity's GetMembership, cached). */
export interface OrganizationRoles {
  get(organizationId: string, userId: string, tokenId?: string): Promise<OrganizationRole | null>;
}

/** The caller's standing in an organization. */
export interface OrganizationStanding {
  /** The role of an enabled member (MEMBER_ROLE_GUEST for a guest); null for anyone else. */
  role: MemberRole | null;
  /** An enabled member with a role (guests are not). */
  member: boolean;
  admin: boolean;
}

/** What a call needs of its caller in the organization: any enabled membership (guests too), a role, or the admin role. */
export type OrganizationNeed = "guest" | "member" | "admin";

/** A caller who has what the call needs in the organization. */
export interface OrganizationCaller {
  caller: CallerInput;
  organizationId: string;
  /** Their role (MEMBER_ROLE_GUEST for a guest): what they are shown may depend on it. */
  role: MemberRole;
  admin: boolean;
}

/** The caller's standing in the organization, from identity (through `deps.memberships`); ids that are not uuids stand for no one. */
export async function organizationStanding(
  deps: { memberships: OrganizationRoles },
  caller: CallerInput,
  organizationId: string,
): Promise<OrganizationStanding> {
  const membership = isId(organizationId) && isId(caller.userId) ? await deps.memberships.get(organizationId, caller.userId, caller.tokenId) : null;
  const role = membership?.role ?? null;
  const member = role !== null && role !== MemberRole.MEMBER_ROLE_GUEST && role !== MemberRole.MEMBER_ROLE_UNSPECIFIED;
  return { role, member, admin: role === MemberRole.MEMBER_ROLE_ADMIN };
}

/**
 * The organization check of every service (docs/permissions.md): a call without a caller is
 * unauthenticated; someone who cannot see the organization (not an enabled member, a guest when
 * `need` is a role) gets "Organization not found", so organizations of others look like ones that do
 * not exist; a member without the admin role asking for `need` "admin" gets permission_denied,
 * "Only organization admins can <action>".
 */
export async function requireOrganizationRole(
  deps: { memberships: OrganizationRoles },
  callerInput: CallerInput | undefined,
  organizationId: string,
  need: OrganizationNeed,
  action = "do this",
): Promise<OrganizationCaller> {
  const caller = requireCaller(callerInput);
  const { role, member, admin } = await organizationStanding(deps, caller, organizationId);
  if (role === null || (need !== "guest" && !member)) throw AppError.notFound("Organization");
  if (need === "admin" && !admin) throw AppError.permissionDenied(`Only organization admins can ${action}`);
  return { caller, organizationId, role, admin };
}
