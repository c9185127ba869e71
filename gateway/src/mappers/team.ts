import { TeamRole, type Team, type TeamMembership } from "@imprint/proto/identity/v1/teams";
import { AppError } from "@imprint/runtime/core";
import { toRestMember, type RestMember } from "./member.js";
import type { PublicUrls } from "./urls.js";

export type TeamRoleName = "owner" | "member";

export interface RestTeam {
  object: "team";
  id: string;
  title: string;
  members: number;
  spaces: number;
  createdAt: string;
  permissions: { admin: boolean; view: boolean };
}

export function toRestTeamRole(role: TeamRole): TeamRoleName {
  if (role === TeamRole.TEAM_ROLE_OWNER) return "owner";
  if (role === TeamRole.TEAM_ROLE_MEMBER) return "member";
  throw new AppError("internal", `upstream answered an unknown team role ${String(role)}`);
}

export function toProtoTeamRole(role: TeamRoleName | undefined): TeamRole {
  if (role === undefined) return TeamRole.TEAM_ROLE_UNSPECIFIED;
  return role === "owner" ? TeamRole.TEAM_ROLE_OWNER : TeamRole.TEAM_ROLE_MEMBER;
}

/** A team; `spaces` counts the spaces it was granted (content's count, 0 until it is asked). */
export function toRestTeam(team: Team | undefined, spaces = 0): RestTeam {
  if (!team) throw new AppError("internal", "upstream answered no team");
  return {
    object: "team",
    id: team.id,
    title: team.title,
    members: team.members,
    spaces,
    createdAt: (team.createdAt ?? new Date(0)).toISOString(),
    permissions: { admin: team.canAdmin, view: true },
  };
}

/** GitBook's OrganizationTeamMember: the organization membership, the team role, what the caller may do. */
export function toRestTeamMember(
  item: TeamMembership,
  urls: PublicUrls,
): { organization: RestMember; team: { role: TeamRoleName }; permissions: { view: boolean } } {
  return { organization: toRestMember(item.member, urls), team: { role: toRestTeamRole(item.role) }, permissions: { view: true } };
}
