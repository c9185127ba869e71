import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { Member } from "./member.js";
import { OrganizationSchema } from "./organization.js";
import { UserSchema } from "./user.js";

/** A member's role in a team: owners manage its members. */
export const TEAM_ROLES = ["owner", "member"] as const;
export type TeamRoleValue = (typeof TEAM_ROLES)[number];

/** GitBook's bounds of a team title. */
export const TEAM_TITLE_MAX_LENGTH = 64;

/** A team of an organization: a group of its members that content can grant access to. */
export const TeamSchema = defineEntity({
  name: "Team",
  tableName: "teams",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade"),
    title: p.string().length(TEAM_TITLE_MAX_LENGTH),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["organization", "createdAt", "id"], name: "teams_organization_created_at_index" }],
});
export class Team extends TeamSchema.class {}
TeamSchema.setClass(Team);

/** A user's membership of a team (they are a member of the team's organization). */
export const TeamMemberSchema = defineEntity({
  name: "TeamMember",
  tableName: "team_members",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    team: p.manyToOne(TeamSchema).deleteRule("cascade"),
    user: p.manyToOne(UserSchema).deleteRule("cascade"),
    role: p.enum(TEAM_ROLES),
    addedAt: p.datetime(),
  },
  uniques: [{ properties: ["team", "user"], name: "team_members_team_user_unique" }],
  indexes: [
    { properties: ["team", "addedAt", "id"], name: "team_members_team_added_at_index" },
    { properties: ["user"], name: "team_members_user_index" },
  ],
});
export class TeamMember extends TeamMemberSchema.class {}
TeamMemberSchema.setClass(TeamMember);

/** A title as stored: trimmed, 1 to 64 characters. */
export function teamTitle(raw: string): string {
  const title = raw.trim();
  if (title.length === 0 || title.length > TEAM_TITLE_MAX_LENGTH) throw AppError.invalidArgument(`title: must be 1 to ${TEAM_TITLE_MAX_LENGTH} characters`);
  return title;
}

/** Whether `member` (of the team's organization) may manage the team: admins, and the team's owners. */
export function canManageTeam(member: Pick<Member, "role">, ownRole: TeamRoleValue | null): boolean {
  return member.role === "admin" || ownRole === "owner";
}
