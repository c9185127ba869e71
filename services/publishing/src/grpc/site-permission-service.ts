import { SitePermissionOrigin, type SitePermissionServiceService } from "@imprint/proto/publishing/v1/site_permissions";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { LevelOrigin } from "../domain/site-permission.js";
import type { UseCaseDeps } from "../deps.js";
import { levelRole } from "../use-cases/shared/site-grants.js";
import { inviteToSite } from "../use-cases/site-permissions/invite-to-site.js";
import { listSitePermissionsAggregate } from "../use-cases/site-permissions/list-site-permissions-aggregate.js";
import { listSiteTeamPermissions } from "../use-cases/site-permissions/list-site-team-permissions.js";
import { listSiteUserPermissions } from "../use-cases/site-permissions/list-site-user-permissions.js";
import { removeSitePermission } from "../use-cases/site-permissions/remove-site-permission.js";
import { updateSitePermission } from "../use-cases/site-permissions/update-site-permission.js";

export const SITE_PERMISSION_SERVICE_NAME = "imprint.publishing.v1.SitePermissionService";

const ORIGINS: Record<LevelOrigin["kind"], SitePermissionOrigin> = {
  organization: SitePermissionOrigin.SITE_PERMISSION_ORIGIN_ORGANIZATION,
  member: SitePermissionOrigin.SITE_PERMISSION_ORIGIN_MEMBER,
  team: SitePermissionOrigin.SITE_PERMISSION_ORIGIN_TEAM,
};

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function sitePermissionServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SitePermissionServiceService> {
  const site = (request: { caller?: { userId: string; tokenId: string }; organizationId: string; siteId: string }) => ({
    caller: request.caller,
    organizationId: request.organizationId,
    siteId: request.siteId,
  });
  return {
    inviteToSite: async (request) => {
      await inviteToSite(em(), { ...site(request), userIds: request.userIds, teamIds: request.teamIds, role: request.role }, deps);
      return {};
    },

    listSiteUserPermissions: async (request) => {
      const page = await listSiteUserPermissions(em(), { ...site(request), page: pageRequest(request.page) }, deps);
      return { permissions: page.items.map((grant) => ({ userId: grant.userId, role: levelRole(grant.level) })), page: pageInfo(page) };
    },

    updateSiteUserPermission: async (request) => {
      await updateSitePermission(em(), { ...site(request), grantee: { kind: "user", userId: request.userId }, role: request.role }, deps);
      return {};
    },

    removeSiteUserPermission: async (request) => removeSitePermission(em(), { ...site(request), grantee: { kind: "user", userId: request.userId } }, deps),

    listSiteTeamPermissions: async (request) => {
      const page = await listSiteTeamPermissions(em(), { ...site(request), page: pageRequest(request.page) }, deps);
      return { permissions: page.items.map((grant) => ({ teamId: grant.teamId, role: levelRole(grant.level) })), page: pageInfo(page) };
    },

    updateSiteTeamPermission: async (request) => {
      await updateSitePermission(em(), { ...site(request), grantee: { kind: "team", teamId: request.teamId }, role: request.role }, deps);
      return {};
    },

    removeSiteTeamPermission: async (request) => removeSitePermission(em(), { ...site(request), grantee: { kind: "team", teamId: request.teamId } }, deps),

    listSitePermissionsAggregate: async (request) => {
      const answer = await listSitePermissionsAggregate(
        em(),
        {
          ...site(request),
          page: pageRequest(request.page),
          order: request.order,
          role: request.role,
          search: request.search,
          sort: request.sort,
          teamId: request.teamId,
        },
        deps,
      );
      return {
        permissions: answer.items.map((item) => ({
          member: item.member,
          role: levelRole(item.level),
          origin: ORIGINS[item.origin.kind],
          teamId: item.origin.kind === "team" ? item.origin.teamId : "",
        })),
        page: { nextPageToken: answer.nextPageToken, totalCount: answer.totalCount },
      };
    },
  };
}
