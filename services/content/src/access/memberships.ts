import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, MembershipCache as RoleCache, roleName, type MembershipClient } from "@imprint/runtime";
import type { Level } from "./domain/levels.js";

export type { MembershipClient };

/** A caller's standing in an organization: an enabled member with a role, or a guest (role null). */
export interface Membership {
  role: Level | null;
  /** Who: with the organization, what their teams' grants are looked up by. */
  userId: string;
  organizationId: string;
}

/**
 * The caller's organization role as content's levels: the runtime's MembershipCache (identity's
 * GetMembership, cached, dropped by identity's member events) mapped once here.
 */
export class MembershipCache {
  /** The cached roles themselves, which identity's member events invalidate. */
  readonly roles: RoleCache;

  constructor(identity: MembershipClient, ttlMs: number, now?: () => number) {
    this.roles = new RoleCache(identity, ttlMs, now);
  }

  /** The user's membership of the organization; null when not a member or disabled. */
  async get(organizationId: string, userId: string, tokenId = ""): Promise<Membership | null> {
    const answer = await this.roles.get(organizationId, userId, tokenId);
    return answer && membershipOf(organizationId, userId, answer.role);
  }

  /** Forgets what is known about the user in the organization (the next check asks identity). */
  invalidate(organizationId: string, userId: string): void {
    this.roles.invalidate(organizationId, userId);
  }
}

/** An enabled member's organization role as content's levels (a guest has none). */
export function membershipOf(organizationId: string, userId: string, memberRole: MemberRole): Membership {
  if (memberRole === MemberRole.MEMBER_ROLE_GUEST) return { role: null, userId, organizationId };
  // Content's levels are the organization roles' names (plus the levels only spaces have).
  const role: Level | undefined = roleName(memberRole);
  if (!role) throw new AppError("internal", `identity answered an unknown role ${String(memberRole)}`);
  return { role, userId, organizationId };
}
