import { defineEntity, p } from "@mikro-orm/postgresql";
import { LEVELS, type Level } from "./levels.js";

/** What a team's grant is on: a space, or a collection (and everything inside it). */
export const GRANT_TARGETS = ["space", "collection"] as const;
export type GrantTarget = (typeof GRANT_TARGETS)[number];

/**
 * A team's level on a space or a collection (GitBook's team permissions). It adds to what members
 * of the team have by their own role and the item's default level, never takes away; on a
 * collection it reaches every collection and space inside it.
 */
export const TeamGrantSchema = defineEntity({
  name: "TeamGrant",
  tableName: "team_grants",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    teamId: p.uuid(),
    targetType: p.enum(GRANT_TARGETS),
    targetId: p.uuid(),
    level: p.enum(LEVELS),
    createdAt: p.datetime(),
  },
  uniques: [{ properties: ["targetType", "targetId", "teamId"], name: "team_grants_target_team_unique" }],
  indexes: [{ properties: ["organizationId", "teamId"], name: "team_grants_organization_team_index" }],
});
export class TeamGrant extends TeamGrantSchema.class {}
TeamGrantSchema.setClass(TeamGrant);

/** The better of two levels (no level is the worst). */
export function better(a: Level | null, b: Level | null): Level | null {
  if (a === null) return b;
  if (b === null) return a;
  return LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b;
}

/**
 * The levels a user was granted, directly or through their teams, by space and by collection (the
 * best where several grants meet).
 */
export interface GrantedLevels {
  spaces: ReadonlyMap<string, Level>;
  collections: ReadonlyMap<string, Level>;
}

export const NO_GRANTED_LEVELS: GrantedLevels = { spaces: new Map(), collections: new Map() };
