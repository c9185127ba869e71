import { defineEntity, p, type FilterQuery } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { OrganizationSchema } from "./organization.js";
import { ROLES } from "./roles.js";
import { UserSchema } from "./user.js";

/**
 * A user's membership of an organization. The indexes serve the membership check that starts
 * every organization-scoped call (organization + user) and each ListMembers sort.
 */
export const MemberSchema = defineEntity({
  name: "Member",
  tableName: "members",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade"),
    user: p.manyToOne(UserSchema).deleteRule("cascade").index(),
    /** null = guest. */
    role: p.enum(ROLES).nullable(),
    disabled: p.boolean().default(false),
    sso: p.boolean().default(false),
    joinedAt: p.datetime(),
    lastSeenAt: p.datetime().nullable(),
    /**
     * Lower-cased copy of the user's display name, so members sort and page by name with one
     * index instead of a join. Users have no rename operation yet; one must refresh this column.
     */
    sortName: p.string().length(255),
  },
  uniques: [{ properties: ["organization", "user"], name: "members_organization_user_unique" }],
  indexes: [
    { properties: ["organization", "joinedAt", "id"], name: "members_organization_joined_at_index" },
    { properties: ["organization", "lastSeenAt", "id"], name: "members_organization_last_seen_at_index" },
    { properties: ["organization", "sortName", "id"], name: "members_organization_sort_name_index" },
    { properties: ["organization", "role"], name: "members_organization_role_index" },
  ],
});
export class Member extends MemberSchema.class {
  /** Organization-wide administration (roles, SSO, invites, settings) is for admins only. */
  requireAdmin(action: string): void {
    if (this.role !== "admin") throw AppError.permissionDenied(`Only admins of the organization can ${action}`);
  }

  /** Marks the member as signing in through SSO; false when it already did (enabling is idempotent). */
  enableSso(): boolean {
    if (this.sso) return false;
    this.sso = true;
    return true;
  }

  /** The member was active in the organization at `now`. */
  recordActivity(now: Date): void {
    this.lastSeenAt = now;
  }
}
MemberSchema.setClass(Member);

/**
 * Memberships of people only: the principals of integration installations (users with an
 * `integrationInstallationId`) are members for authorization, but nobody lists, counts or manages
 * them as members.
 */
export const PEOPLE_ONLY = { user: { integrationInstallationId: null } } as const satisfies FilterQuery<Member>;

/** A person's membership of the organization (never an installation's principal); `disabled: false` for an enabled one only. */
export function personMembership(organizationId: string, userId: string, options: { enabledOnly?: boolean } = {}): FilterQuery<Member> {
  return { organization: organizationId, user: { id: userId, integrationInstallationId: null }, ...(options.enabledOnly ? { disabled: false } : {}) };
}

export const LAST_ADMIN_DEMOTION_MESSAGE = "The last admin of the organization cannot be demoted: make another member admin first";
export const LAST_ADMIN_REMOVAL_MESSAGE = "The last admin of the organization cannot be removed: make another member admin first";
