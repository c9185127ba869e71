import type { EntityManager } from "@mikro-orm/postgresql";
import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, isId, recordEvent, roleName, roleOfName, type Actor } from "@imprint/runtime";
import { SiteTeamGrant, SiteUserGrant, isLevel, type Level } from "../../domain/site-permission.js";
import type { Site } from "../../domain/site.js";
import type { UseCaseDeps } from "../../deps.js";
import { sitePermissionRemoved, sitePermissionUpdated } from "../../events.js";

/** Who a grant is for: a user (their own) or a team (its members). */
export type Grantee = { kind: "user"; userId: string } | { kind: "team"; teamId: string };

/** A grant request's level: a level, or null to take the grant away (MEMBER_ROLE_GUEST); anything else is refused naming `field`. */
export function grantLevel(role: MemberRole, field = "role"): Level | null {
  if (role === MemberRole.MEMBER_ROLE_GUEST) return null;
  const name = role === MemberRole.MEMBER_ROLE_UNSPECIFIED ? undefined : roleName(role);
  if (!name || !isLevel(name)) throw AppError.invalidArgument(`${field}: must be one of admin, create, review, edit, comment, read, or null`);
  return name;
}

/** A level as the proto's role. */
export function levelRole(level: Level): MemberRole {
  return roleOfName(level);
}

/**
 * The users, each a member of the site's organization (guests too); anything else (a malformed id
 * too) is refused naming its field (`fieldOf(index)`). One call to identity.
 */
export async function requireOrganizationUsers(
  deps: Pick<UseCaseDeps, "identity">,
  organizationId: string,
  userIds: readonly string[],
  fieldOf: (index: number) => string,
): Promise<void> {
  if (userIds.length === 0) return;
  const { members } = await deps.identity.members.batchGetMembers({ organizationId, userIds: [...new Set(userIds.filter(isId))] });
  const found = new Set(members.map((member) => member.user?.id));
  userIds.forEach((userId, index) => {
    if (!found.has(userId)) throw AppError.invalidArgument(`${fieldOf(index)}: no member ${userId} in this organization`);
  });
}

/** The teams, each of the site's organization; anything else is refused naming its field. One call to identity. */
export async function requireOrganizationTeams(
  deps: Pick<UseCaseDeps, "identity">,
  organizationId: string,
  teamIds: readonly string[],
  fieldOf: (index: number) => string,
): Promise<void> {
  if (teamIds.length === 0) return;
  const { teams } = await deps.identity.teams.batchGetTeams({ organizationId, teamIds: [...new Set(teamIds.filter(isId))] });
  const found = new Set(teams.map((team) => team.id));
  teamIds.forEach((teamId, index) => {
    if (!found.has(teamId)) throw AppError.invalidArgument(`${fieldOf(index)}: no team ${teamId} in this organization`);
  });
}

/**
 * Sets a grantee's level on a (locked) site, or takes their grant away (level null); records
 * `site_permission.updated` or `.removed` when something changed. Answers whether a grant was there.
 */
export async function setGrant(
  tx: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  actor: Actor,
  site: Site,
  grantee: Grantee,
  level: Level | null,
): Promise<boolean> {
  // A malformed id names no one: there is no grant of theirs to change.
  if (!isId(grantee.kind === "user" ? grantee.userId : grantee.teamId)) return false;
  const existing =
    grantee.kind === "user"
      ? await tx.findOne(SiteUserGrant, { siteId: site.id, userId: grantee.userId })
      : await tx.findOne(SiteTeamGrant, { siteId: site.id, teamId: grantee.teamId });
  const ids = { siteId: site.id, userId: grantee.kind === "user" ? grantee.userId : "", teamId: grantee.kind === "team" ? grantee.teamId : "" };
  if (level === null) {
    if (!existing) return false;
    tx.remove(existing);
    recordEvent(tx, sitePermissionRemoved, { organizationId: site.organizationId, actor, payload: { ...ids, role: existing.level } });
    return true;
  }
  if (existing?.level === level) return true;
  const now = deps.clock();
  if (existing) {
    existing.level = level;
    existing.updatedAt = now;
  } else if (grantee.kind === "user") {
    tx.persist(
      tx.create(SiteUserGrant, { siteId: site.id, userId: grantee.userId, organizationId: site.organizationId, level, createdAt: now, updatedAt: now }),
    );
  } else {
    tx.persist(
      tx.create(SiteTeamGrant, { siteId: site.id, teamId: grantee.teamId, organizationId: site.organizationId, level, createdAt: now, updatedAt: now }),
    );
  }
  recordEvent(tx, sitePermissionUpdated, {
    organizationId: site.organizationId,
    actor,
    payload: { ...ids, role: level, ...(existing ? { previousRole: existing.level } : {}) },
  });
  return existing !== null;
}
