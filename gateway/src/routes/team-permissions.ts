import { GrantTarget } from "@imprint/proto/content/v1/permissions";
import { z } from "zod";
import { roleOrGuestSchema, toProtoRole } from "../mappers/role.js";
import { restTeamGrants } from "./team-views.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

export const updateTeamPermissionBody = z.object({ role: roleOrGuestSchema });

/**
 * Teams' permissions on spaces and collections (content's grants, the teams from identity):
 * GitBook's listTeamPermissionsIn…, updateTeamPermissionIn… and removeTeamFrom… operations.
 */
export function teamPermissionRoutes({ upstreams }: RouteDeps): Route[] {
  const permissions = upstreams.content.permissions;
  // Each route names its item as GitBook's path does (:spaceId, :collectionId); handlers read it as the grant's target.
  const kinds = [
    {
      prefix: "/v1/spaces/:spaceId",
      target: GrantTarget.GRANT_TARGET_SPACE,
      itemParams: z.object({ spaceId: pathId() }).transform(({ spaceId }) => ({ targetId: spaceId })),
      grantParams: z.object({ spaceId: pathId(), teamId: pathId() }).transform(({ spaceId, teamId }) => ({ targetId: spaceId, teamId })),
    },
    {
      prefix: "/v1/collections/:collectionId",
      target: GrantTarget.GRANT_TARGET_COLLECTION,
      itemParams: z.object({ collectionId: pathId() }).transform(({ collectionId }) => ({ targetId: collectionId })),
      grantParams: z.object({ collectionId: pathId(), teamId: pathId() }).transform(({ collectionId, teamId }) => ({ targetId: collectionId, teamId })),
    },
  ];
  return kinds.flatMap(({ prefix, target, itemParams, grantParams }) => [
    // listTeamPermissionsInSpace / listTeamPermissionsInCollection
    defineRoute({
      method: "GET",
      path: `${prefix}/permissions/teams`,
      params: itemParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const page = await permissions.listTeamPermissions({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(await restTeamGrants(upstreams, page.organizationId, page.permissions), page.page, cursors));
      },
    }),

    // updateTeamPermissionInSpace / updateTeamPermissionInCollection: role null takes the grant away.
    defineRoute({
      method: "PATCH",
      path: `${prefix}/permissions/teams/:teamId`,
      params: grantParams,
      body: updateTeamPermissionBody,
      handler: async ({ params, body, principal }) => {
        await permissions.setTeamPermission({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          teamId: params.teamId,
          role: toProtoRole(body.role),
        });
        return noContent();
      },
    }),

    // removeTeamFromSpace / removeTeamFromCollection: 205 when removed, 204 when the team had no grant.
    defineRoute({
      method: "DELETE",
      path: `${prefix}/permissions/teams/:teamId`,
      params: grantParams,
      handler: async ({ params, principal }) =>
        (await permissions.removeTeamPermission({ caller: principal.caller, target, targetId: params.targetId, teamId: params.teamId })).removed
          ? resetContent()
          : noContent(),
    }),
  ]);
}
