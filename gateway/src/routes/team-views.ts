import type { MemberRole } from "@imprint/proto/identity/v1";
import type { Team } from "@imprint/proto/identity/v1/teams";
import { toRestRole } from "../mappers/role.js";
import { toRestTeam, type RestTeam } from "../mappers/team.js";
import { toRestUser, type RestUser } from "../mappers/user.js";
import type { PublicUrls } from "../mappers/urls.js";
import type { RouteDeps } from "./deps.js";

type Upstreams = RouteDeps["upstreams"];

/** Teams as GitBook shows them: identity's teams, each with how many spaces content granted it. */
export async function restTeams(upstreams: Upstreams, organizationId: string, teams: readonly Team[]): Promise<RestTeam[]> {
  if (teams.length === 0) return [];
  const { spaces } = await upstreams.content.permissions.countTeamSpaces({ organizationId, teamIds: teams.map((team) => team.id) });
  return teams.map((team) => toRestTeam(team, spaces[team.id] ?? 0));
}

/** The teams `teamIds` name that identity still has, as GitBook shows them, by id (both upstreams asked at once). */
export async function restTeamsById(upstreams: Upstreams, organizationId: string, teamIds: readonly string[]): Promise<Map<string, RestTeam>> {
  if (teamIds.length === 0) return new Map();
  const [{ teams }, { spaces }] = await Promise.all([
    upstreams.identity.teams.batchGetTeams({ organizationId, teamIds: [...teamIds] }),
    upstreams.content.permissions.countTeamSpaces({ organizationId, teamIds: [...teamIds] }),
  ]);
  return new Map(teams.map((team) => [team.id, toRestTeam(team, spaces[team.id] ?? 0)]));
}

/** Teams' grants as GitBook lists them; a grant whose team identity no longer has (deleted, its event not handled yet) is left out. */
export async function restTeamGrants(upstreams: Upstreams, organizationId: string, grants: readonly { teamId: string; role: MemberRole }[]) {
  const teams = await restTeamsById(
    upstreams,
    organizationId,
    grants.map((grant) => grant.teamId),
  );
  return grants.flatMap((grant) => {
    const team = teams.get(grant.teamId);
    return team ? [{ permission: toRestRole(grant.role), team }] : [];
  });
}

/** The users `userIds` name who are still members of the organization, as GitBook shows them, by id. */
export async function restMembersById(
  upstreams: Upstreams,
  urls: PublicUrls,
  organizationId: string,
  userIds: readonly string[],
): Promise<Map<string, RestUser>> {
  if (userIds.length === 0) return new Map();
  const { members } = await upstreams.identity.members.batchGetMembers({ organizationId, userIds: [...new Set(userIds)] });
  return new Map(members.flatMap((member) => (member.user ? [[member.user.id, toRestUser(member.user, urls)] as const] : [])));
}

/** People's grants as GitBook lists them; a grant whose user left the organization (their event not handled yet) is left out. */
export async function restUserGrants(upstreams: Upstreams, urls: PublicUrls, organizationId: string, grants: readonly { userId: string; role: MemberRole }[]) {
  const users = await restMembersById(
    upstreams,
    urls,
    organizationId,
    grants.map((grant) => grant.userId),
  );
  return grants.flatMap((grant) => {
    const user = users.get(grant.userId);
    return user ? [{ permission: toRestRole(grant.role), user }] : [];
  });
}
