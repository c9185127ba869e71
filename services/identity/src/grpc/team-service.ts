import { TeamServiceService } from "@imprint/proto/identity/v1/teams";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from "../use-cases/teams/manage-teams.js";
import {
  batchGetTeams,
  getUserTeams,
  listMemberTeams,
  listTeamMembers,
  listTeamMemberships,
  putTeamMember,
  removeTeamMember,
  updateTeamMembers,
} from "../use-cases/teams/team-members.js";
import type { UseCaseDeps } from "../deps.js";
import { memberToProto, teamRoleFromProto, teamRoleToProto, teamToProto } from "./mappers.js";

export const TEAM_SERVICE_NAME = "imprint.identity.v1.TeamService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function teamServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof TeamServiceService> {
  return {
    listTeams: async (request) => {
      const page = await listTeams(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          page: pageRequest(request.page),
          ownerUserId: request.ownerUserId,
          title: request.title,
        },
        useCaseDeps,
      );
      return { teams: page.items.map(teamToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createTeam: async (request) => {
      const view = await createTeam(
        em(),
        { caller: request.caller, organizationId: request.organizationId, title: request.title, memberUserIds: request.memberUserIds },
        useCaseDeps,
      );
      return { team: teamToProto(view) };
    },

    getTeam: async (request) => ({
      team: teamToProto(await getTeam(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId }, useCaseDeps)),
    }),

    updateTeam: async (request) => ({
      team: teamToProto(
        await updateTeam(
          em(),
          {
            caller: request.caller,
            organizationId: request.organizationId,
            teamId: request.teamId,
            updateMask: request.updateMask ?? [],
            title: request.title,
          },
          useCaseDeps,
        ),
      ),
    }),

    deleteTeam: async (request) => deleteTeam(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId }, useCaseDeps),

    listTeamMembers: async (request) => {
      const page = await listTeamMembers(
        em(),
        { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, page: pageRequest(request.page) },
        useCaseDeps,
      );
      return {
        members: page.items.map((item) => ({ member: memberToProto(item.member), role: teamRoleToProto(item.role) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    updateTeamMembers: async (request) => {
      const roles: Record<string, "owner" | "member"> = {};
      for (const [userId, role] of Object.entries(request.roles)) {
        const value = teamRoleFromProto(role);
        if (value === undefined || value === "invalid") throw AppError.invalidArgument(`memberships.${userId}.role: must be owner or member`);
        roles[userId] = value;
      }
      await updateTeamMembers(
        em(),
        { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, add: request.add, remove: request.remove, roles },
        useCaseDeps,
      );
      return {};
    },

    putTeamMember: async (request) => {
      const role = teamRoleFromProto(request.role);
      if (role === "invalid") throw AppError.invalidArgument("role: must be owner or member");
      await putTeamMember(
        em(),
        { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, userId: request.userId, role },
        useCaseDeps,
      );
      return {};
    },

    removeTeamMember: async (request) =>
      removeTeamMember(em(), { caller: request.caller, organizationId: request.organizationId, teamId: request.teamId, userId: request.userId }, useCaseDeps),

    listMemberTeams: async (request) => {
      const page = await listMemberTeams(
        em(),
        { caller: request.caller, organizationId: request.organizationId, userId: request.userId, page: pageRequest(request.page), title: request.title },
        useCaseDeps,
      );
      return {
        teams: page.items.map((item) => ({ team: teamToProto(item.view), role: teamRoleToProto(item.role) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
      };
    },

    getUserTeams: async (request) => ({ teamIds: await getUserTeams(em(), { organizationId: request.organizationId, userId: request.userId }, useCaseDeps) }),

    batchGetTeams: async (request) => ({
      teams: (await batchGetTeams(em(), { organizationId: request.organizationId, teamIds: request.teamIds }, useCaseDeps)).map(teamToProto),
    }),

    listTeamMemberships: async (request) => listTeamMemberships(em(), { organizationId: request.organizationId }, useCaseDeps),
  };
}
