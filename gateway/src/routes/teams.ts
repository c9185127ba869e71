import { z } from "zod";
import type { Team } from "@imprint/proto/identity/v1/teams";
import { toProtoTeamRole, toRestTeam, toRestTeamMember, toRestTeamRole, type RestTeam } from "../mappers/team.js";
import { restTeams } from "./team-views.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const teamParams = z.object({ organizationId: pathId(), teamId: pathId() });
const teamMemberParams = z.object({ organizationId: pathId(), teamId: pathId(), userId: pathId() });
const memberParams = z.object({ organizationId: pathId(), userId: pathId() });

const teamTitle = z.string().trim().min(1).max(64);
const teamRole = z.enum(["owner", "member"]);
/** A user named in a bulk change: a user id or an e-mail address. */
const userRef = z.string().trim().min(1).max(320);
const MAX_USERS = 1000;

export const listTeamsQuery = z.object({ ...pageQueryShape, owner: z.string().max(64).optional(), title: z.string().max(255).optional() });
export const createTeamBody = z.object({ title: teamTitle, members: z.array(z.string().min(1).max(64)).max(MAX_USERS).optional() });
export const updateTeamBody = z.object({ title: teamTitle });
export const updateTeamMembersBody = z.object({
  add: z.array(userRef).max(MAX_USERS).optional(),
  remove: z.array(userRef).max(MAX_USERS).optional(),
  memberships: z.record(z.string().min(1).max(64), z.object({ role: teamRole })).optional(),
});
export const putTeamMemberBody = z.object({ role: teamRole.optional() }).optional();
export const listMemberTeamsQuery = z.object({ ...pageQueryShape, title: z.string().max(255).optional() });

/** Teams and their members (identity), GitBook's operations under /v1/orgs/{organizationId}/teams. */
export function teamRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  const restTeam = async (organizationId: string, team: Team | undefined): Promise<RestTeam> => {
    if (!team) return toRestTeam(team);
    return (await restTeams(upstreams, organizationId, [team]))[0]!;
  };
  const teamLocation = (organizationId: string, teamId: string) =>
    `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/teams/${encodeURIComponent(teamId)}`;
  return [
    // listTeamsInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/teams",
      params: organizationParams,
      query: listTeamsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.teams.listTeams({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
          ownerUserId: query.owner ?? "",
          title: query.title ?? "",
        });
        return ok(toPagedList(await restTeams(upstreams, params.organizationId, response.teams), response.page, cursors));
      },
    }),

    // createOrganizationTeam
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/teams",
      params: organizationParams,
      body: createTeamBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.teams.createTeam({
          caller: principal.caller,
          organizationId: params.organizationId,
          title: body.title,
          memberUserIds: body.members ?? [],
        });
        // A new team has no space granted yet: its answer needs no second upstream once it is saved.
        const team = toRestTeam(response.team, 0);
        return created(team, teamLocation(params.organizationId, team.id));
      },
    }),

    // getTeamInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/teams/:teamId",
      params: teamParams,
      handler: async ({ params, principal }) =>
        ok(await restTeam(params.organizationId, (await identity.teams.getTeam({ caller: principal.caller, ...params })).team)),
    }),

    // updateTeamInOrganizationById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/teams/:teamId",
      params: teamParams,
      body: updateTeamBody,
      handler: async ({ params, body, principal }) => {
        // Content's count is read before the rename (which does not change it): once identity saved
        // it, the answer needs nothing more, so an outage of content fails the request unapplied.
        const { spaces } = await upstreams.content.permissions.countTeamSpaces({ organizationId: params.organizationId, teamIds: [params.teamId] });
        const { team } = await identity.teams.updateTeam({ caller: principal.caller, ...params, updateMask: ["title"], title: body.title });
        return ok(toRestTeam(team, spaces[params.teamId] ?? 0));
      },
    }),

    // removeTeamFromOrganizationById: 205 when it was deleted, 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/teams/:teamId",
      params: teamParams,
      handler: async ({ params, principal }) =>
        (await identity.teams.deleteTeam({ caller: principal.caller, ...params })).deleted ? resetContent() : noContent(),
    }),

    // listTeamMembersInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/teams/:teamId/members",
      params: teamParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.teams.listTeamMembers({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.members.map((item) => toRestTeamMember(item, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // updateMembersInOrganizationTeam
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/teams/:teamId/members",
      params: teamParams,
      body: updateTeamMembersBody,
      handler: async ({ params, body, principal }) => {
        const roles = Object.fromEntries(Object.entries(body.memberships ?? {}).map(([userId, membership]) => [userId, toProtoTeamRole(membership.role)]));
        await identity.teams.updateTeamMembers({ caller: principal.caller, ...params, add: body.add ?? [], remove: body.remove ?? [], roles });
        return noContent();
      },
    }),

    // addMemberToOrganizationTeamById: adds the member, or sets their role.
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
      params: teamMemberParams,
      body: putTeamMemberBody,
      handler: async ({ params, body, principal }) => {
        await identity.teams.putTeamMember({ caller: principal.caller, ...params, role: toProtoTeamRole(body?.role) });
        return noContent();
      },
    }),

    // deleteMemberFromOrganizationTeamById: 205 when removed, 204 when the user was not in the team.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/teams/:teamId/members/:userId",
      params: teamMemberParams,
      handler: async ({ params, principal }) =>
        (await identity.teams.removeTeamMember({ caller: principal.caller, ...params })).removed ? resetContent() : noContent(),
    }),

    // listTeamsForOrganizationMember
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/members/:userId/teams",
      params: memberParams,
      query: listMemberTeamsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.teams.listMemberTeams({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          title: query.title ?? "",
        });
        const teams = await restTeams(
          upstreams,
          params.organizationId,
          response.teams.map((item) => item.team!),
        );
        return ok(
          toPagedList(
            response.teams.map((item, index) => ({ team: teams[index]!, member: { role: toRestTeamRole(item.role) } })),
            response.page,
            cursors,
          ),
        );
      },
    }),
  ];
}
