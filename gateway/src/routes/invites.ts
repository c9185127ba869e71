import type { InviteLink } from "@imprint/proto/identity/v1/invites";
import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { toRestCollection, type RestCollection } from "../mappers/collection.js";
import { toRestInviteLink, type InviteTargets } from "../mappers/invite.js";
import { roleOrGuestSchema, toProtoRole } from "../mappers/role.js";
import { toRestSpace, type RestSpace } from "../mappers/space.js";
import type { Principal } from "../auth.js";
import { pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const inviteParams = z.object({ organizationId: pathId(), inviteId: pathId() });

/** An instant: ISO 8601 with its offset; null where the field may be cleared (never expires). */
const expiresAtSchema = z.iso.datetime({ offset: true }).nullable();

/** inviteUsersToOrganization: e-mails as strings or with their own role; identity checks the addresses. */
export const inviteUsersBody = z.object({
  emails: z.array(z.union([z.string().min(1), z.object({ email: z.string().min(1), role: roleOrGuestSchema })])).min(1),
  role: roleOrGuestSchema.optional(),
  sso: z.boolean().optional(),
});

/** createOrganizationInvite: GitBook's three shapes ({role}, {level, space}, {level, collection}) plus Imprint's expiresAt and enabled. */
export const createInviteBody = z.object({
  role: roleOrGuestSchema.optional(),
  level: roleOrGuestSchema.optional(),
  space: pathId().optional(),
  collection: pathId().optional(),
  expiresAt: expiresAtSchema.optional(),
  enabled: z.boolean().optional(),
});

/** updateOrganizationInviteById: GitBook's {role} or {level}, plus Imprint's expiresAt and enabled. */
export const updateInviteBody = z
  .object({
    role: roleOrGuestSchema.optional(),
    level: roleOrGuestSchema.optional(),
    expiresAt: expiresAtSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: "must contain role, level, expiresAt or enabled" });
export type UpdateInviteBody = z.output<typeof updateInviteBody>;

/** REST body → UpdateInviteLink fields plus the mask naming exactly the fields sent (null expiresAt: never expires). */
export function toUpdateInviteFields(body: UpdateInviteBody) {
  return toMaskedUpdate(
    body,
    { role: MemberRole.MEMBER_ROLE_UNSPECIFIED, level: MemberRole.MEMBER_ROLE_UNSPECIFIED, expiresAt: undefined as Date | undefined, enabled: false },
    {
      role: ["role", (role) => ({ role: toProtoRole(role) })],
      level: ["level", (level) => ({ level: toProtoRole(level) })],
      expiresAt: ["expires_at", (expiresAt) => ({ expiresAt: expiresAt === null ? undefined : new Date(expiresAt) })],
      enabled: ["enabled", (enabled) => ({ enabled })],
    },
  );
}

export function inviteRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  const content = upstreams.content;

  /** The spaces and collections `invites` point to, as the caller reads them: one batch call for spaces, one read per collection. */
  async function readTargets(
    principal: Principal,
    organizationId: string,
    invites: readonly Pick<InviteLink, "spaceId" | "collectionId">[],
  ): Promise<InviteTargets> {
    const spaceIds = [...new Set(invites.map((invite) => invite.spaceId).filter(Boolean))];
    const collectionIds = [...new Set(invites.map((invite) => invite.collectionId).filter(Boolean))];
    const spaces = new Map<string, RestSpace>();
    const collections = new Map<string, RestCollection>();
    if (spaceIds.length > 0) {
      const response = await content.spaces.batchGetSpaces({ caller: principal.caller, organizationId, spaceIds });
      for (const space of response.spaces) spaces.set(space.id, toRestSpace(space, urls));
    }
    await Promise.all(
      collectionIds.map(async (collectionId) => {
        try {
          const response = await content.collections.getCollection({ caller: principal.caller, collectionId });
          if (response.collection?.organizationId === organizationId) collections.set(collectionId, toRestCollection(response.collection, urls));
        } catch (error) {
          // A collection deleted since the link was made: the link is answered without it.
          if (!(error instanceof AppError && error.code === "not_found")) throw error;
        }
      }),
    );
    return { spaces, collections };
  }

  return [
    // inviteUsersToOrganization: the addresses become members at once (no e-mail is sent).
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/invites",
      params: organizationParams,
      body: inviteUsersBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.invites.inviteMembers({
          caller: principal.caller,
          organizationId: params.organizationId,
          emails: body.emails.map((entry) =>
            typeof entry === "string" ? { email: entry, role: MemberRole.MEMBER_ROLE_UNSPECIFIED } : { email: entry.email, role: toProtoRole(entry.role) },
          ),
          role: body.role === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(body.role),
          sso: body.sso ?? false,
        });
        return ok({ users: response.userIds, invited: response.invited });
      },
    }),

    // joinOrganizationWithInvite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/invites/:inviteId",
      params: inviteParams,
      handler: async ({ params, principal }) => {
        await identity.invites.joinOrganizationWithInvite({ caller: principal.caller, ...params });
        return ok({});
      },
    }),

    // listOrganizationInviteLinks: the links not revoked, newest first.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/link-invites",
      params: organizationParams,
      query: pageQuerySchema,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.invites.listInviteLinks({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
        });
        const targets = await readTargets(principal, params.organizationId, response.invites);
        return ok(
          toPagedList(
            response.invites.map((invite) => toRestInviteLink(invite, targets, { inList: true })),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createOrganizationInvite: a link to a space or collection is checked against content first
    // (the caller must read it, in this organization), which identity cannot do.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/link-invites",
      params: organizationParams,
      body: createInviteBody,
      handler: async ({ params, body, principal }) => {
        const targets = await readTargets(principal, params.organizationId, [{ spaceId: body.space ?? "", collectionId: body.collection ?? "" }]);
        if (body.space && !body.collection && !targets.spaces.has(body.space)) throw AppError.notFound("Space");
        if (body.collection && !body.space && !targets.collections.has(body.collection)) throw AppError.notFound("Collection");
        const response = await identity.invites.createInviteLink({
          caller: principal.caller,
          organizationId: params.organizationId,
          role: body.role === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(body.role),
          level: body.level === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(body.level),
          spaceId: body.space ?? "",
          collectionId: body.collection ?? "",
          expiresAt: body.expiresAt ? new Date(body.expiresAt) : undefined,
          disabled: body.enabled === false,
        });
        const invite = toRestInviteLink(response.invite, targets);
        return created(invite, `${urls.api}/v1/orgs/${encodeURIComponent(params.organizationId)}/link-invites/${encodeURIComponent(invite.id)}`);
      },
    }),

    // getOrganizationInviteLink
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/link-invites/:inviteId",
      params: inviteParams,
      handler: async ({ params, principal }) => {
        const response = await identity.invites.getInviteLink({ caller: principal.caller, ...params });
        const targets = await readTargets(principal, params.organizationId, response.invite ? [response.invite] : []);
        return ok(toRestInviteLink(response.invite, targets));
      },
    }),

    // updateOrganizationInviteById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/link-invites/:inviteId",
      params: inviteParams,
      body: updateInviteBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.invites.updateInviteLink({ caller: principal.caller, ...params, ...toUpdateInviteFields(body) });
        const targets = await readTargets(principal, params.organizationId, response.invite ? [response.invite] : []);
        return ok(toRestInviteLink(response.invite, targets));
      },
    }),

    // joinOrganization: for users of one of the organization's e-mail domains.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/join",
      params: organizationParams,
      handler: async ({ params, principal }) => {
        await identity.invites.joinOrganization({ caller: principal.caller, organizationId: params.organizationId });
        return noContent();
      },
    }),
  ];
}
