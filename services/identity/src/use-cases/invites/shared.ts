import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned } from "@imprint/runtime";
import { LinkInvite } from "../../domain/link-invite.js";
import { Member } from "../../domain/member.js";
import type { Organization } from "../../domain/organization.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { isInstallationPrincipal, User } from "../../domain/user.js";
import { requireMembership } from "../shared/access.js";
import { nextMembershipVersion } from "../../store/organizations.js";
import { createMember } from "../shared/members.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** An invite link with whether the caller already has all it gives. */
export interface InviteLinkView {
  invite: LinkInvite;
  redundant: boolean;
}

/** The caller's membership, which must be an admin's: invites are managed by admins only. */
export async function requireInviteAdmin(tx: EntityManager, organizationId: string, caller: CallerInput, deps: UseCaseDeps, action: string) {
  const member = await requireMembership(tx, organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  member.requireAdmin(action);
  return member;
}

/** A link of the organization that is not revoked ("Invite not found" otherwise, as after a delete). */
export async function findLiveInvite(tx: EntityManager, organizationId: string, inviteId: string, options: { lock?: boolean } = {}): Promise<LinkInvite> {
  const invite = await findOwned(tx, LinkInvite, { organization: organizationId }, inviteId, { name: "Invite", ...options });
  if (invite.revokedAt) throw AppError.notFound("Invite");
  return invite;
}

export const ALREADY_A_MEMBER = "You are already a member of this organization";

/**
 * Makes the caller a member of the organization with `role` (records `member.added`). A user who
 * is already a member (enabled or not) is refused, and so is an installation's principal, which
 * belongs to its installation's organization only. A link to a space or a collection (`invite`)
 * has its level there carried on the event, for content to grant it.
 */
export async function joinAsCaller(
  tx: EntityManager,
  organization: Organization,
  caller: CallerInput,
  role: MemberRoleValue,
  deps: UseCaseDeps,
  invite?: LinkInvite,
): Promise<Member> {
  const user = await tx.findOne(User, caller.userId);
  if (!user) throw AppError.unauthenticated();
  if (isInstallationPrincipal(user)) throw AppError.permissionDenied("An integration installation joins no organization but its own");
  if ((await tx.count(Member, { organization, user })) > 0) throw new AppError("already_exists", ALREADY_A_MEMBER);
  const grant =
    invite && (invite.spaceId || invite.collectionId) && invite.level
      ? {
          spaceId: invite.spaceId ?? "",
          collectionId: invite.collectionId ?? "",
          level: invite.level,
          membershipVersion: await nextMembershipVersion(tx, organization.id),
        }
      : undefined;
  return createMember(tx, { organization, user, role, grant }, deps, caller);
}

/** A space's or collection's id as content's API names it. */
const TARGET_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function validateTargetId(field: string, value: string): string {
  if (!TARGET_ID.test(value)) throw AppError.invalidArgument(`${field}: must be an id of 1 to 64 letters, digits, "-" or "_"`);
  return value;
}

export const ROLE_RULE = "must be a role (admin, create, review, edit, comment, read) or guest";
export const LEVEL_RULE = "must be a level (admin, create, review, edit, comment, read)";
