import { AppError } from "@imprint/runtime/core";
import type { MergeRules } from "@imprint/proto/identity/v1/organizations";
import { z } from "zod";
import { toRestOrganization } from "../mappers/organization.js";
import { roleOrGuestSchema, toProtoRole } from "../mappers/role.js";
import { pageQuerySchema, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import { toMaskedUpdate } from "../update-mask.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });

/**
 * GitBook's merge rules configuration, checked for shape only: the type and the rules (names,
 * users, what Imprint supports) are identity's to check.
 */
const mergeRulesBody = z.object({
  type: z.string(),
  rules: z.array(z.object({ rule: z.string(), users: z.array(z.string()).optional() })).optional(),
});

/** PATCH /v1/orgs/{organizationId}: every field optional; unknown fields ignored. */
export const updateOrganizationBody = z.object({
  // The title's and hostname's rules (lengths, characters) are identity's; the gateway checks shape.
  title: z.string().optional(),
  emailDomains: z.array(z.string().min(1)).optional(),
  /** null clears the hostname; an empty string is no hostname at all. */
  hostname: z.string().min(1).nullable().optional(),
  defaultRole: roleOrGuestSchema.optional(),
  defaultContent: z
    .object({ type: z.literal("site"), site: z.string().min(1) })
    .nullable()
    .optional(),
  logo: z.url().nullable().optional(),
  sso: z.boolean().optional(),
  ai: z.boolean().optional(),
  inviteLinks: z.boolean().optional(),
  mergeRules: mergeRulesBody.optional(),
  /** Imprint's: how members may sign in to act in the organization (some of "password", "oidc", "saml"; identity checks them). */
  signInMethods: z.array(z.string().max(32)).max(10).optional(),
});
export type UpdateOrganizationBody = z.output<typeof updateOrganizationBody>;

/**
 * REST body → UpdateOrganization fields plus an update mask naming exactly the fields the client
 * sent; null clears (empty string) or, for the default role, means guest.
 */
export function toUpdateOrganizationFields(body: UpdateOrganizationBody) {
  return toMaskedUpdate(
    body,
    {
      title: "",
      emailDomains: [] as string[],
      hostname: "",
      defaultRole: toProtoRole(null),
      defaultContentSiteId: "",
      logoUrl: "",
      sso: false,
      ai: false,
      inviteLinks: false,
      mergeRules: undefined as MergeRules | undefined,
      signInMethods: [] as string[],
    },
    {
      title: ["title", (title) => ({ title })],
      emailDomains: ["email_domains", (emailDomains) => ({ emailDomains })],
      hostname: ["hostname", (hostname) => ({ hostname: hostname ?? "" })],
      defaultRole: ["default_role", (role) => ({ defaultRole: toProtoRole(role) })],
      defaultContent: ["default_content_site_id", (content) => ({ defaultContentSiteId: content?.site ?? "" })],
      logo: ["logo_url", (logo) => ({ logoUrl: logo ?? "" })],
      sso: ["sso", (sso) => ({ sso })],
      ai: ["ai", (ai) => ({ ai })],
      inviteLinks: ["invite_links", (inviteLinks) => ({ inviteLinks })],
      signInMethods: ["sign_in_methods", (signInMethods) => ({ signInMethods })],
      mergeRules: [
        "merge_rules",
        (mergeRules) => ({
          mergeRules: { type: mergeRules.type, rules: (mergeRules.rules ?? []).map((rule) => ({ rule: rule.rule, userIds: rule.users ?? [] })) },
        }),
      ],
    },
  );
}

/** POST /v1/orgs: GitBook's onboarding preferences are for its default site, which Imprint does not create. */
export const createOrganizationBody = z.object({
  title: z.string(),
  emailDomains: z.array(z.string().min(1)).optional(),
  onboardingPreferences: z.looseObject({}).optional(),
});

export const createOrganizationQuery = z.object({
  withDefaultSite: queryParam.boolean().optional(),
  openapiUrl: queryParam.string(2048).optional(),
});

export function organizationRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  return [
    // listOrganizationsForAuthenticatedUser
    defineRoute({
      method: "GET",
      path: "/v1/orgs",
      query: pageQuerySchema,
      handler: async ({ query, principal, cursors }) => {
        const response = await identity.organizations.listOrganizations({ caller: principal.caller, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.organizations.map((o) => toRestOrganization(o, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // createOrganization: the caller becomes its admin.
    defineRoute({
      method: "POST",
      path: "/v1/orgs",
      query: createOrganizationQuery,
      body: createOrganizationBody,
      handler: async ({ query, body, principal }) => {
        if (query.withDefaultSite) {
          throw AppError.invalidArgument(
            "withDefaultSite: Imprint creates no default site; create the organization, then its site (POST /v1/orgs/{organizationId}/sites)",
          );
        }
        const response = await identity.organizations.createOrganizationForCaller({
          caller: principal.caller,
          title: body.title,
          emailDomains: body.emailDomains ?? [],
        });
        const organization = toRestOrganization(response.organization, urls);
        return created(organization, organization.urls.location);
      },
    }),

    // getOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId",
      params: organizationParams,
      handler: async ({ params, principal }) => {
        const response = await identity.organizations.getOrganization({ caller: principal.caller, organizationId: params.organizationId });
        return ok(toRestOrganization(response.organization, urls));
      },
    }),

    // updateOrganizationById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId",
      params: organizationParams,
      body: updateOrganizationBody,
      handler: async ({ params, body, principal }) => {
        const response = await identity.organizations.updateOrganization({
          caller: principal.caller,
          organizationId: params.organizationId,
          ...toUpdateOrganizationFields(body),
        });
        return ok(toRestOrganization(response.organization, urls));
      },
    }),

    // deleteOrganizationInviteById: 204 whether or not the invite existed (interface.md; GitBook uses 205 when deleted).
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/link-invites/:inviteId",
      params: z.object({ organizationId: pathId(), inviteId: pathId() }),
      handler: async ({ params, principal }) => {
        await identity.organizations.deleteLinkInvite({ caller: principal.caller, organizationId: params.organizationId, inviteId: params.inviteId });
        return noContent();
      },
    }),

    // getOrganizationsForEmailDomain
    defineRoute({
      method: "GET",
      path: "/v1/email-domains/:emailDomain/orgs",
      params: z.object({ emailDomain: z.string().min(1).max(253) }),
      handler: async ({ params, principal }) => {
        const response = await identity.organizations.listOrganizationsForEmailDomain({
          caller: principal.caller,
          emailDomain: params.emailDomain,
        });
        return ok({ organizations: response.organizations.map((o) => toRestOrganization(o, urls)) });
      },
    }),
  ];
}
