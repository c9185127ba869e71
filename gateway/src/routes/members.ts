import { SortOrder } from "@imprint/proto/common/v1";
import { MemberRole } from "@imprint/proto/identity/v1";
import { MemberSort } from "@imprint/proto/identity/v1/members";
import { z } from "zod";
import { toRestMember } from "../mappers/member.js";
import { ROLE_NAMES, roleOrGuestSchema, toProtoRole } from "../mappers/role.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const memberParams = z.object({ organizationId: pathId(), userId: pathId() });

const SORT_BY_NAME = {
  joinedAt: MemberSort.MEMBER_SORT_JOINED_AT,
  lastSeenAt: MemberSort.MEMBER_SORT_LAST_SEEN_AT,
  name: MemberSort.MEMBER_SORT_NAME,
} as const;

const ORDER_BY_NAME = { asc: SortOrder.SORT_ORDER_ASC, desc: SortOrder.SORT_ORDER_DESC } as const;

export const listMembersQuery = z.object({
  ...pageQueryShape,
  order: z.enum(["asc", "desc"]).optional(),
  role: z.enum([...ROLE_NAMES, "guest"]).optional(),
  search: z.string().max(256).optional(),
  sort: z.enum(["joinedAt", "lastSeenAt", "name"]).optional(),
});

export const updateMemberBody = z.object({ role: roleOrGuestSchema });

export function memberRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  return [
    // listMembersInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/members",
      params: organizationParams,
      query: listMembersQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.members.listMembers({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
          order: query.order ? ORDER_BY_NAME[query.order] : SortOrder.SORT_ORDER_UNSPECIFIED,
          role: query.role === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(query.role === "guest" ? null : query.role),
          search: query.search ?? "",
          sort: query.sort ? SORT_BY_NAME[query.sort] : MemberSort.MEMBER_SORT_UNSPECIFIED,
        });
        return ok(
          toPagedList(
            response.members.map((m) => toRestMember(m, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // getMemberInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/members/:userId",
      params: memberParams,
      handler: async ({ params, principal }) => {
        const response = await identity.members.getMember({ caller: principal.caller, ...params });
        return ok(toRestMember(response.member, urls));
      },
    }),

    // updateMemberInOrganizationById: role null makes the member a guest.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/members/:userId",
      params: memberParams,
      body: updateMemberBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.members.updateMember({ caller: principal.caller, ...params, updateMask: ["role"], role: toProtoRole(body.role) });
        return ok(toRestMember(response.member, urls));
      },
    }),

    // removeMemberFromOrganizationById: 204 whether or not the user was a member (interface.md; GitBook uses 205).
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/members/:userId",
      params: memberParams,
      handler: async ({ params, principal }) => {
        await identity.members.removeMember({ caller: principal.caller, ...params });
        return noContent();
      },
    }),

    // setUserAsSSOMemberForOrganization
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/members/:userId/sso",
      params: memberParams,
      handler: async ({ params, principal }) => {
        const response = await identity.members.setMemberSso({ caller: principal.caller, ...params });
        return ok(toRestMember(response.member, urls));
      },
    }),

    // updateOrganizationMemberLastSeenAt: with the member's visitor token once the organization has
    // sites, under GitBook's name (`gitbookVisitorClaims`) and interface.md's (`serviceVisitorClaims`).
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/ping",
      params: organizationParams,
      handler: async ({ params, principal }) => {
        // The token first: once identity recorded the ping, the answer needs nothing more.
        const { token } = await upstreams.publishing.memberVisitorTokens.issueMemberVisitorToken({
          caller: principal.caller,
          organizationId: params.organizationId,
        });
        await identity.members.pingMember({ caller: principal.caller, organizationId: params.organizationId });
        return ok(token ? { gitbookVisitorClaims: token, serviceVisitorClaims: token } : {});
      },
    }),
  ];
}
