import { defineEntity, p } from "@mikro-orm/postgresql";
import { OrganizationSchema } from "./organization.js";
import { ROLES, type MemberRoleValue } from "./roles.js";

/**
 * An invite link: anyone holding its id joins the organization through it until it is revoked.
 * A link to the organization gives `role` (null = guest); a link to one space or collection makes
 * its users guests invited with `level` on that target (the target's grant is content's to make).
 * `enabled` and `expiresAt` stop a link for a while or from a date; `revokedAt` (DeleteLinkInvite)
 * stops it for good, the row staying so that a join through it is told why.
 */
export const LinkInviteSchema = defineEntity({
  name: "LinkInvite",
  tableName: "link_invites",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade").index(),
    role: p.enum(ROLES).nullable(),
    level: p.enum(ROLES).nullable(),
    spaceId: p.string().length(64).nullable(),
    collectionId: p.string().length(64).nullable(),
    expiresAt: p.datetime().nullable(),
    enabled: p.boolean().default(true),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});

/** Why a link admits nobody now, as the join's answer says it; null when it admits. */
export type InviteRefusal = "revoked" | "disabled" | "expired";

export class LinkInvite extends LinkInviteSchema.class {
  /** Revoked first (for good), then disabled, then expired: the reason the admin must undo. */
  refusalAt(now: Date): InviteRefusal | null {
    if (this.revokedAt) return "revoked";
    if (!this.enabled) return "disabled";
    if (this.expiresAt && this.expiresAt.getTime() <= now.getTime()) return "expired";
    return null;
  }

  /** The role a user joining through the link gets: a link to a space or collection makes guests. */
  get joinRole(): MemberRoleValue {
    return this.spaceId || this.collectionId ? null : (this.role ?? null);
  }

  /** The caller (a member with `role`, or none) already has all the link gives. */
  isRedundantFor(role: MemberRoleValue | undefined): boolean {
    if (role === undefined) return false;
    const wanted = this.spaceId || this.collectionId ? (this.level ?? null) : (this.role ?? null);
    return atLeast(role, wanted);
  }

  revoke(now: Date): boolean {
    if (this.revokedAt) return false;
    this.revokedAt = now;
    return true;
  }
}
LinkInviteSchema.setClass(LinkInvite);

/** `role` gives at least what `wanted` gives (a guest gives nothing beyond being a member). */
function atLeast(role: MemberRoleValue, wanted: MemberRoleValue): boolean {
  if (wanted === null) return true;
  if (role === null) return false;
  return ROLES.indexOf(role) <= ROLES.indexOf(wanted);
}

/**
 * How a refused join is answered: a revoked link is not found, as GitBook answers for a deleted
 * invite, but says it was revoked; a link stopped for now is a permission the caller lacks.
 */
export const REFUSALS: Readonly<Record<InviteRefusal, { code: "not_found" | "permission_denied"; message: string }>> = {
  revoked: { code: "not_found", message: "This invite link was revoked: ask an admin of the organization for a new one" },
  disabled: { code: "permission_denied", message: "This invite link is disabled (enabled: false): ask an admin of the organization to enable it" },
  expired: { code: "permission_denied", message: "This invite link has expired (expiresAt): ask an admin of the organization for a new one" },
};
