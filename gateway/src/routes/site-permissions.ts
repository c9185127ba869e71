import { SortOrder } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { MemberSort } from "@imprint/proto/identity/v1/members";
import { SitePermissionOrigin, type SitePermissionAggregate } from "@imprint/proto/publishing/v1/site_permissions";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { roleOrGuestSchema, toProtoRole, toRestRole } from "../mappers/role.js";
import { toRestUser } from "../mappers/user.js";
import type { PublicUrls } from "../mappers/urls.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { listMembersQuery } from "./members.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";
import { restTeamGrants, restUserGrants } from "./team-views.js";

const userGrantParams = siteParams.extend({ userId: pathId() });
const teamGrantParams = siteParams.extend({ teamId: pathId() });

// GitBook's InviteSiteUsersAndTeams: a role (null: take the grants away) for users, teams or both.
export const inviteToSiteBody = z
  .object({ role: roleOrGuestSchema, users: z.array(pathId()).min(1).optional(), teams: z.array(pathId()).min(1).optional() })
  .refine((body) => body.users !== undefined || body.teams !== undefined, { error: "must contain users or teams" });
export const updateSitePermissionBody = z.object({ role: roleOrGuestSchema });
const aggregateQuery = listMembersQuery.extend({ team: pathId().optional() });

const SORT_BY_NAME = {
  joinedAt: MemberSort.MEMBER_SORT_JOINED_AT,
  lastSeenAt: MemberSort.MEMBER_SORT_LAST_SEEN_AT,
  name: MemberSort.MEMBER_SORT_NAME,
} as const;
const ORDER_BY_NAME = { asc: SortOrder.SORT_ORDER_ASC, desc: SortOrder.SORT_ORDER_DESC } as const;

/** GitBook's UserSitePermission: the user, their level on the site and where it comes from. */
function toRestSitePermission(item: SitePermissionAggregate, siteId: string, organizationId: string, urls: PublicUrls) {
  const origin = (() => {
    switch (item.origin) {
      case SitePermissionOrigin.SITE_PERMISSION_ORIGIN_ORGANIZATION:
        return { type: "organization" as const, organization: organizationId };
      case SitePermissionOrigin.SITE_PERMISSION_ORIGIN_MEMBER:
        return { type: "site" as const, site: siteId, reason: "member" as const };
      case SitePermissionOrigin.SITE_PERMISSION_ORIGIN_TEAM:
        return { type: "site" as const, site: siteId, reason: "team" as const, team: item.teamId };
      default:
        throw new AppError("internal", `publishing answered an unknown permission origin ${String(item.origin)}`);
    }
  })();
  return {
    permission: toRestRole(item.role),
    user: toRestUser(item.member?.user, urls),
    origin,
    disabled: item.member?.disabled ?? false,
    ...(item.member?.lastSeenAt ? { lastSeenAt: item.member.lastSeenAt.toISOString() } : {}),
  };
}

/**
 * People's and teams' permissions on a site (publishing's grants; users and teams from identity):
 * GitBook's site-permissions (inviteToSite, team permissions) and site-users operations.
 */
export function sitePermissionRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const permissions = upstreams.publishing.sitePermissions;
  return [
    // inviteToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions",
      params: siteParams,
      body: inviteToSiteBody,
      handler: async ({ params, body, principal }) => {
        await permissions.inviteToSite({
          caller: principal.caller,
          ...params,
          userIds: body.users ?? [],
          teamIds: body.teams ?? [],
          role: toProtoRole(body.role),
        });
        return noContent();
      },
    }),

    // listPermissionsAggregateInSite
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/aggregate",
      params: siteParams,
      query: aggregateQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await permissions.listSitePermissionsAggregate({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          order: query.order ? ORDER_BY_NAME[query.order] : SortOrder.SORT_ORDER_UNSPECIFIED,
          role: query.role === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(query.role === "guest" ? null : query.role),
          search: query.search ?? "",
          sort: query.sort ? SORT_BY_NAME[query.sort] : MemberSort.MEMBER_SORT_UNSPECIFIED,
          teamId: query.team ?? "",
        });
        const items = response.permissions.map((item) => toRestSitePermission(item, params.siteId, params.organizationId, urls));
        return ok(toPagedList(items, response.page, cursors));
      },
    }),

    // listUserPermissionsInSite
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/users",
      params: siteParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const page = await permissions.listSiteUserPermissions({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(toPagedList(await restUserGrants(upstreams, urls, params.organizationId, page.permissions), page.page, cursors));
      },
    }),

    // updateUserPermissionInSite: role null takes the grant away.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/users/:userId",
      params: userGrantParams,
      body: updateSitePermissionBody,
      handler: async ({ params, body, principal }) => {
        await permissions.updateSiteUserPermission({ caller: principal.caller, ...params, role: toProtoRole(body.role) });
        return noContent();
      },
    }),

    // removeUserFromSite: 205 when removed, 204 when the user had no grant.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/users/:userId",
      params: userGrantParams,
      handler: async ({ params, principal }) =>
        (await permissions.removeSiteUserPermission({ caller: principal.caller, ...params })).removed ? resetContent() : noContent(),
    }),

    // listTeamPermissionsInSite
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/teams",
      params: siteParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const page = await permissions.listSiteTeamPermissions({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(toPagedList(await restTeamGrants(upstreams, params.organizationId, page.permissions), page.page, cursors));
      },
    }),

    // updateTeamPermissionInSite: role null takes the grant away.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId",
      params: teamGrantParams,
      body: updateSitePermissionBody,
      handler: async ({ params, body, principal }) => {
        await permissions.updateSiteTeamPermission({ caller: principal.caller, ...params, role: toProtoRole(body.role) });
        return noContent();
      },
    }),

    // removeTeamFromSite: 205 when removed, 204 when the team had no grant.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId",
      params: teamGrantParams,
      handler: async ({ params, principal }) =>
        (await permissions.removeSiteTeamPermission({ caller: principal.caller, ...params })).removed ? resetContent() : noContent(),
    }),
  ];
}
