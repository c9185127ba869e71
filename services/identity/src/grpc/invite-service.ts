import { MemberRole } from "@imprint/proto/identity/v1";
import { InviteServiceService } from "@imprint/proto/identity/v1/invites";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { createInviteLink } from "../use-cases/invites/create-invite-link.js";
import { getInviteLink } from "../use-cases/invites/get-invite-link.js";
import { inviteMembers } from "../use-cases/invites/invite-members.js";
import { joinOrganization } from "../use-cases/invites/join-organization.js";
import { joinOrganizationWithInvite } from "../use-cases/invites/join-organization-with-invite.js";
import { listInviteLinks } from "../use-cases/invites/list-invite-links.js";
import { updateInviteLink } from "../use-cases/invites/update-invite-link.js";
import type { MemberRoleValue } from "../domain/roles.js";
import type { UseCaseDeps } from "../deps.js";
import { inviteLinkToProto, memberToProto, roleFromProto } from "./mappers.js";

export const INVITE_SERVICE_NAME = "imprint.identity.v1.InviteService";

/** Unspecified is "none given" (undefined); any other value the role it names, or "invalid". */
function optionalRoleFromProto(role: MemberRole): MemberRoleValue | undefined | "invalid" {
  if (role === MemberRole.MEMBER_ROLE_UNSPECIFIED) return undefined;
  const value = roleFromProto(role);
  return value === undefined ? "invalid" : value;
}

/** Where "none given" is itself refused, an invalid value reads as none (the use case names the field). */
function roleOrNone(role: MemberRole): MemberRoleValue | undefined {
  const value = optionalRoleFromProto(role);
  return value === "invalid" ? undefined : value;
}

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function inviteServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof InviteServiceService> {
  return {
    inviteMembers: async (request) => {
      const { userIds } = await inviteMembers(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          emails: request.emails.map((entry) => ({ email: entry.email, role: optionalRoleFromProto(entry.role) })),
          role: optionalRoleFromProto(request.role),
          sso: request.sso,
        },
        useCaseDeps,
      );
      return { userIds, invited: userIds.length };
    },

    createInviteLink: async (request) => {
      const view = await createInviteLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          role: roleOrNone(request.role),
          level: roleOrNone(request.level),
          spaceId: request.spaceId,
          collectionId: request.collectionId,
          expiresAt: request.expiresAt,
          disabled: request.disabled,
        },
        useCaseDeps,
      );
      return { invite: inviteLinkToProto(view) };
    },

    listInviteLinks: async (request) => {
      const page = await listInviteLinks(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) },
        useCaseDeps,
      );
      return { invites: page.items.map(inviteLinkToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    getInviteLink: async (request) => {
      const view = await getInviteLink(em(), { caller: request.caller, organizationId: request.organizationId, inviteId: request.inviteId }, useCaseDeps);
      return { invite: inviteLinkToProto(view) };
    },

    updateInviteLink: async (request) => {
      const view = await updateInviteLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          inviteId: request.inviteId,
          updateMask: request.updateMask ?? [],
          role: roleFromProto(request.role),
          level: roleFromProto(request.level),
          expiresAt: request.expiresAt,
          enabled: request.enabled,
        },
        useCaseDeps,
      );
      return { invite: inviteLinkToProto(view) };
    },

    joinOrganizationWithInvite: async (request) => {
      const member = await joinOrganizationWithInvite(
        em(),
        { caller: request.caller, organizationId: request.organizationId, inviteId: request.inviteId },
        useCaseDeps,
      );
      return { member: memberToProto(member) };
    },

    joinOrganization: async (request) => {
      const member = await joinOrganization(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps);
      return { member: memberToProto(member) };
    },
  };
}
