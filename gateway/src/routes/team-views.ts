import type { Team } from "@imprint/proto/identity/v1/teams";
import { toRestTeam, type RestTeam } from "../mappers/team.js";
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
