import {
  GrantTarget as GrantTargetMessage,
  PermissionOriginKind,
  type PermissionOrigin as PermissionOriginMessage,
  type UserPermissionServiceService,
} from "@imprint/proto/content/v1/permissions";
import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, forkEm, pageRequest, roleName, roleOfName, type AsyncImplementation } from "@imprint/runtime";
import type { GrantTarget, Level } from "../../access/index.js";
import {
  grantPermissions,
  listPermissionsAggregate,
  listUserPermissions,
  removeUserPermission,
  setUserPermission,
  type PermissionOrigin,
} from "../use-cases/user-permissions.js";
import { targetOf } from "./team-permission-service.js";
import type { ContentDeps } from "../../deps.js";

export const USER_PERMISSION_SERVICE_NAME = "imprint.content.v1.UserPermissionService";

const ROLE_RULE = "role: must be a role (admin, create, review, edit, comment, read) or null";

/** A request's level: MEMBER_ROLE_GUEST (null in REST) takes grants away. */
function levelOf(role: MemberRole): Level | null {
  const level = role === MemberRole.MEMBER_ROLE_GUEST ? null : roleName(role);
  if (level === undefined) throw AppError.invalidArgument(ROLE_RULE);
  return level;
}

function targetMessage(target: GrantTarget): GrantTargetMessage {
  return target === "space" ? GrantTargetMessage.GRANT_TARGET_SPACE : GrantTargetMessage.GRANT_TARGET_COLLECTION;
}

function originMessage(origin: PermissionOrigin): PermissionOriginMessage {
  if (origin.kind === "organization")
    return { kind: PermissionOriginKind.PERMISSION_ORIGIN_KIND_ORGANIZATION, target: GrantTargetMessage.GRANT_TARGET_UNSPECIFIED, targetId: "", teamId: "" };
  return {
    kind: origin.kind === "user" ? PermissionOriginKind.PERMISSION_ORIGIN_KIND_USER : PermissionOriginKind.PERMISSION_ORIGIN_KIND_TEAM,
    target: targetMessage(origin.target),
    targetId: origin.targetId,
    teamId: origin.kind === "team" ? origin.teamId : "",
  };
}

/** Thin transport of people's grants and the aggregate: one use case per call on a fresh EntityManager. */
export function userPermissionServiceImplementation(deps: ContentDeps): AsyncImplementation<typeof UserPermissionServiceService> {
  const em = () => forkEm(deps.orm);
  return {
    listUserPermissions: async (request) => {
      const page = await listUserPermissions(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, page: pageRequest(request.page) },
        deps,
      );
      return {
        permissions: page.items.map((grant) => ({ userId: grant.userId, role: roleOfName(grant.level) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
        organizationId: page.organizationId,
      };
    },
    setUserPermission: async (request) => {
      const level = levelOf(request.role);
      await setUserPermission(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, userId: request.userId, level },
        deps,
      );
      return {};
    },
    removeUserPermission: async (request) =>
      removeUserPermission(em(), { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, userId: request.userId }, deps),
    grantPermissions: async (request) => {
      const level = levelOf(request.role);
      await grantPermissions(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, userIds: request.userIds, teamIds: request.teamIds, level },
        deps,
      );
      return {};
    },
    listPermissionsAggregate: async (request) => {
      const role = request.role === MemberRole.MEMBER_ROLE_UNSPECIFIED ? null : roleName(request.role);
      if (role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read)");
      const page = await listPermissionsAggregate(
        em(),
        { caller: request.caller, target: targetOf(request.target), targetId: request.targetId, page: pageRequest(request.page), role },
        deps,
      );
      return {
        permissions: page.items.map((entry) => ({ userId: entry.userId, role: roleOfName(entry.level), origin: originMessage(entry.origin) })),
        page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount },
        organizationId: page.organizationId,
      };
    },
  };
}
