import { GrantTarget as GrantTargetMessage, type TeamPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, forkEm, isId, pageRequest, roleName, roleOfName, type AsyncImplementation } from "@imprint/runtime";
import { type GrantTarget, reconcileAllTeamMemberships } from "../../access/index.js";
import { countTeamSpaces, listTeamPermissions, removeTeamPermission, setTeamPermission } from "../use-cases/team-permissions.js";
import type { ContentDeps } from "../../deps.js";

export const TEAM_PERMISSION_SERVICE_NAME = "imprint.content.v1.TeamPermissionService";

export function targetOf(target: GrantTargetMessage): GrantTarget {
  if (target === GrantTargetMessage.GRANT_TARGET_SPACE) return "space";
  if (target === GrantTargetMessage.GRANT_TARGET_COLLECTION) return "collection";
  throw AppError.invalidArgument("target: must be a space or a collection");
}

/** Thin transport of teams' grants: one use case per call on a fresh EntityManager. */
export function teamPermissionServiceImplementation(deps: ContentDeps): AsyncImplementation<typeof TeamPermissionServiceService> {
  const em = () => forkEm(deps.orm);
  return {
    listTeamPermissions: async (request) => {
      const page = await listTeamPermissions(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, page: pageRequest(request.page) },
        deps,
      );
      return {
        permissions: page.items.map((grant) => ({ teamId: grant.teamId, role: roleOfName(grant.level) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
        organizationId: page.organizationId,
      };
    },
    setTeamPermission: async (request) => {
      const level = request.role === MemberRole.MEMBER_ROLE_GUEST ? null : roleName(request.role);
      if (level === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or null");
      await setTeamPermission(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, teamId: request.teamId, level },
        deps,
      );
      return {};
    },
    removeTeamPermission: async (request) =>
      removeTeamPermission(em(), { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, teamId: request.teamId }, deps),
    countTeamSpaces: async (request) => ({
      spaces: Object.fromEntries(await countTeamSpaces(em(), { organizationId: request.organizationId, teamIds: request.teamIds })),
    }),
    reconcileTeamMemberships: async (request) => {
      if (request.organizationId && !isId(request.organizationId)) throw AppError.invalidArgument("organization_id: must be an organization id");
      return reconcileAllTeamMemberships(em(), { organizationId: request.organizationId }, deps);
    },
  };
}
