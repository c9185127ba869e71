import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * Levels on a site, from most to least capable: the organization roles' names. On a site, the
 * admin level changes it (settings, structure, grants); every other level sees it.
 */
export const LEVELS = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type Level = (typeof LEVELS)[number];

const RANK: Readonly<Record<Level, number>> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

/** The better of two levels (no level is the worst). */
export function better(a: Level | null, b: Level | null): Level | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** Where a person's level on a site comes from: their organization role, their own grant, or a team's. */
export type LevelOrigin = { kind: "organization" } | { kind: "member" } | { kind: "team"; teamId: string };

/** A person's level on a site and its origin; level null: they cannot see it. */
export interface SiteLevel {
  level: Level | null;
  origin: LevelOrigin;
}

/** One grant that may apply to a person on a site. */
export interface ApplicableGrant {
  level: Level;
  /** The team whose grant it is; null for the person's own. */
  teamId: string | null;
}

/**
 * A person's level on a site: the best of their organization role (null for a guest) and the
 * grants that reach them. A grant adds, never takes away: the organization role stays the origin
 * unless a grant is strictly better; among grants, the person's own wins a tie, then the team
 * first by id (so the answer does not depend on row order).
 */
export function siteLevel(organizationLevel: Level | null, grants: readonly ApplicableGrant[]): SiteLevel {
  let best: SiteLevel = { level: organizationLevel, origin: { kind: "organization" } };
  const ordered = [...grants].sort((a, b) => (a.teamId ?? "").localeCompare(b.teamId ?? ""));
  for (const grant of ordered) {
    if (best.level !== null && RANK[grant.level] <= RANK[best.level]) continue;
    best = { level: grant.level, origin: grant.teamId === null ? { kind: "member" } : { kind: "team", teamId: grant.teamId } };
  }
  return best;
}

/** A user's level on a site, granted directly (GitBook's user permission on a site). */
export const SiteUserGrantSchema = defineEntity({
  name: "SiteUserGrant",
  tableName: "site_user_grants",
  properties: {
    siteId: p.uuid().primary(),
    userId: p.uuid().primary(),
    organizationId: p.uuid(),
    level: p.enum(LEVELS),
    createdAt: p.datetime(),
    /** When the level was last set: a removal from the organization older than this leaves it. */
    updatedAt: p.datetime(),
  },
  indexes: [
    { properties: ["organizationId", "userId"], name: "site_user_grants_organization_user_index" },
    { properties: ["siteId", "createdAt", "userId"], name: "site_user_grants_site_created_at_index" },
  ],
});
export class SiteUserGrant extends SiteUserGrantSchema.class {}
SiteUserGrantSchema.setClass(SiteUserGrant);

/** A team's level on a site: every member of the team has it there. */
export const SiteTeamGrantSchema = defineEntity({
  name: "SiteTeamGrant",
  tableName: "site_team_grants",
  properties: {
    siteId: p.uuid().primary(),
    teamId: p.uuid().primary(),
    organizationId: p.uuid(),
    level: p.enum(LEVELS),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [
    { properties: ["organizationId", "teamId"], name: "site_team_grants_organization_team_index" },
    { properties: ["siteId", "createdAt", "teamId"], name: "site_team_grants_site_created_at_index" },
  ],
});
export class SiteTeamGrant extends SiteTeamGrantSchema.class {}
SiteTeamGrantSchema.setClass(SiteTeamGrant);
