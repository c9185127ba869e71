import { MemberServiceService } from "@imprint/proto/identity/v1/members";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageRequest, sortDirectionFromProto, type AsyncImplementation } from "@imprint/runtime";
import { MemberRole } from "@imprint/proto/identity/v1";
import { addMember } from "../use-cases/members/add-member.js";
import { batchGetMembers } from "../use-cases/members/batch-get-members.js";
import { getMember } from "../use-cases/members/get-member.js";
import { getMembership } from "../use-cases/members/get-membership.js";
import { listMembers } from "../use-cases/members/list-members.js";
import { pingMember } from "../use-cases/members/ping-member.js";
import { removeMember } from "../use-cases/members/remove-member.js";
import { setMemberSso } from "../use-cases/members/set-member-sso.js";
import { updateMember } from "../use-cases/members/update-member.js";
import type { UseCaseDeps } from "../deps.js";
import { memberSortFromProto, memberToProto, roleFromProto, roleToProto } from "./mappers.js";

export const MEMBER_SERVICE_NAME = "imprint.identity.v1.MemberService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function memberServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof MemberServiceService> {
  return {
    listMembers: async (request) => {
      const order = sortDirectionFromProto(request.order);
      const sort = memberSortFromProto(request.sort);
      if (sort === "invalid") throw AppError.invalidArgument("sort: must be joinedAt, lastSeenAt or name");
      const anyRole = request.role === MemberRole.MEMBER_ROLE_UNSPECIFIED;
      const role = anyRole ? undefined : roleFromProto(request.role);
      if (!anyRole && role === undefined) throw AppError.invalidArgument("role: must be a role (admin, create, review, edit, comment, read) or guest");
      const page = await listMembers(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page), order, role, search: request.search, sort },
        useCaseDeps,
      );
      return { members: page.items.map(memberToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    getMember: async (request) => {
      const member = await getMember(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    updateMember: async (request) => {
      const member = await updateMember(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          userId: request.userId,
          updateMask: request.updateMask ?? [],
          role: roleFromProto(request.role),
        },
        useCaseDeps,
      );
      return { member: memberToProto(member) };
    },

    removeMember: async (request) =>
      removeMember(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps),

    pingMember: async (request) => {
      const member = await pingMember(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    setMemberSso: async (request) => {
      const member = await setMemberSso(em(), { caller: request.caller, organizationId: request.organizationId, userId: request.userId }, useCaseDeps);
      return { member: memberToProto(member) };
    },

    getMembership: async (request) => {
      const membership = await getMembership(em(), { organizationId: request.organizationId, userId: request.userId, tokenId: request.tokenId }, useCaseDeps);
      return { role: roleToProto(membership.role), disabled: membership.disabled };
    },

    batchGetMembers: async (request) => {
      const members = await batchGetMembers(em(), { organizationId: request.organizationId, userIds: request.userIds }, useCaseDeps);
      return { members: members.map(memberToProto) };
    },

    addMember: async (request) => {
      const member = await addMember(em(), { organizationId: request.organizationId, email: request.email, role: roleFromProto(request.role) }, useCaseDeps);
      return { member: memberToProto(member) };
    },
  };
}
