import { GrantTarget, PermissionOriginKind, type PermissionOrigin } from "@imprint/proto/content/v1/permissions";
import { MemberRole } from "@imprint/proto/identity/v1";
import { z } from "zod";
import { roleOrGuestSchema, roleSchema, toProtoRole, toRestRole } from "../mappers/role.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { restMembersById, restUserGrants } from "./team-views.js";

/** GitBook's InviteUsersAndTeams: a role (null takes the grants away) for users, teams or both. */
export const inviteToContentBody = z
  .object({
    role: roleOrGuestSchema,
    users: z.array(pathId()).min(1).max(100).optional(),
    teams: z.array(pathId()).min(1).max(100).optional(),
  })
  .refine((body) => body.users !== undefined || body.teams !== undefined, { error: "must contain users or teams" });

export const updateUserPermissionBody = z.object({ role: roleOrGuestSchema });

/** Where a member's level comes from (an Imprint extension of GitBook's UserContentPermission, shaped as its site permissions' `origin`). */
type RestPermissionOrigin =
  | { type: "organization"; organization: string }
  | { type: "space"; space: string; reason: "member" | "team"; team?: string }
  | { type: "collection"; collection: string; reason: "member" | "team"; team?: string };

function toRestOrigin(origin: PermissionOrigin | undefined, organizationId: string): RestPermissionOrigin {
  if (!origin || origin.kind === PermissionOriginKind.PERMISSION_ORIGIN_KIND_ORGANIZATION) return { type: "organization", organization: organizationId };
  const reason = origin.kind === PermissionOriginKind.PERMISSION_ORIGIN_KIND_TEAM ? "team" : "member";
  const team = reason === "team" ? { team: origin.teamId } : {};
  return origin.target === GrantTarget.GRANT_TARGET_SPACE
    ? { type: "space", space: origin.targetId, reason, ...team }
    : { type: "collection", collection: origin.targetId, reason, ...team };
}

/**
 * People's permissions on spaces and collections (content's grants, the users from identity):
 * GitBook's inviteTo…, listUserPermissionsIn…, updateUserPermissionIn…, removeUserFrom… and
 * listPermissionsAggregateIn… operations.
 */
export function userPermissionRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const permissions = upstreams.content.userPermissions;

  // Each route names its item as GitBook's path does (:spaceId, :collectionId); handlers read it as the grant's target.
  const kinds = [
    {
      prefix: "/v1/spaces/:spaceId",
      target: GrantTarget.GRANT_TARGET_SPACE,
      itemParams: z.object({ spaceId: pathId() }).transform(({ spaceId }) => ({ targetId: spaceId })),
      grantParams: z.object({ spaceId: pathId(), userId: pathId() }).transform(({ spaceId, userId }) => ({ targetId: spaceId, userId })),
    },
    {
      prefix: "/v1/collections/:collectionId",
      target: GrantTarget.GRANT_TARGET_COLLECTION,
      itemParams: z.object({ collectionId: pathId() }).transform(({ collectionId }) => ({ targetId: collectionId })),
      grantParams: z.object({ collectionId: pathId(), userId: pathId() }).transform(({ collectionId, userId }) => ({ targetId: collectionId, userId })),
    },
  ];
  return kinds.flatMap(({ prefix, target, itemParams, grantParams }) => [
    // inviteToSpace / inviteToCollection: users and teams granted one role at once.
    defineRoute({
      method: "POST",
      path: `${prefix}/permissions`,
      params: itemParams,
      body: inviteToContentBody,
      handler: async ({ params, body, principal }) => {
        await permissions.grantPermissions({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          userIds: body.users ?? [],
          teamIds: body.teams ?? [],
          role: toProtoRole(body.role),
        });
        return noContent();
      },
    }),

    // listUserPermissionsInSpace / listUserPermissionsInCollection: the direct grants.
    defineRoute({
      method: "GET",
      path: `${prefix}/permissions/users`,
      params: itemParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const page = await permissions.listUserPermissions({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(await restUserGrants(upstreams, urls, page.organizationId, page.permissions), page.page, cursors));
      },
    }),

    // updateUserPermissionInSpace / updateUserPermissionInCollection: role null takes the grant away.
    defineRoute({
      method: "PATCH",
      path: `${prefix}/permissions/users/:userId`,
      params: grantParams,
      body: updateUserPermissionBody,
      handler: async ({ params, body, principal }) => {
        await permissions.setUserPermission({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          userId: params.userId,
          role: toProtoRole(body.role),
        });
        return noContent();
      },
    }),

    // removeUserFromSpace / removeUserFromCollection: 205 when removed, 204 when the user had no grant.
    defineRoute({
      method: "DELETE",
      path: `${prefix}/permissions/users/:userId`,
      params: grantParams,
      handler: async ({ params, principal }) =>
        (await permissions.removeUserPermission({ caller: principal.caller, target, targetId: params.targetId, userId: params.userId })).removed
          ? resetContent()
          : noContent(),
    }),

    // listPermissionsAggregateInSpace / listPermissionsAggregateInCollection: everyone's level, with its origin.
    defineRoute({
      method: "GET",
      path: `${prefix}/permissions/aggregate`,
      params: itemParams,
      query: z.object({ ...pageQueryShape, role: roleSchema.optional() }),
      handler: async ({ params, query, principal, cursors }) => {
        const page = await permissions.listPermissionsAggregate({
          caller: principal.caller,
          target,
          targetId: params.targetId,
          page: toPageRequest(query, cursors),
          role: query.role === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(query.role),
        });
        const users = await restMembersById(
          upstreams,
          urls,
          page.organizationId,
          page.permissions.map((permission) => permission.userId),
        );
        const items = page.permissions.flatMap((permission) => {
          const user = users.get(permission.userId);
          return user ? [{ permission: toRestRole(permission.role), user, origin: toRestOrigin(permission.origin, page.organizationId) }] : [];
        });
        return ok(toPagedList(items, page.page, cursors));
      },
    }),
  ]);
}
