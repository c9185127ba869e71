import type { SamlProvider } from "@imprint/proto/identity/v1/saml";
import { MemberRole } from "@imprint/proto/identity/v1";
import { z } from "zod";
import { toProtoRole, toRestRole, roleOrGuestSchema } from "../mappers/role.js";
import { AppError } from "@imprint/runtime/core";
import type { RestTeam } from "../mappers/team.js";
import { restTeamsById } from "./team-views.js";
import { readFormBody } from "../middleware/json-body.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { parseInput, pathId } from "../validation.js";
import type { DirectRoute, RouteDeps } from "./deps.js";
import { oidcStartUrl } from "./oidc.js";

const organizationParams = z.object({ organizationId: pathId() });
const providerParams = z.object({ organizationId: pathId(), samlProviderId: pathId() });

const providerFields = {
  label: z.string().trim().min(1).max(100),
  entityID: z.string().trim().min(1).max(2048),
  certificate: z
    .string()
    .trim()
    .min(1)
    .max(16 * 1024),
  ssoURL: z.string().trim().min(1).max(2048),
  defaultTeam: z.string().max(64).nullable(),
  defaultRole: roleOrGuestSchema,
  /** Imprint's: the assertion attribute whose values name teams to join (default "groups"). */
  groupsAttribute: z.string().trim().max(255),
};
export const createSamlProviderBody = z.object({
  ...providerFields,
  entityID: providerFields.entityID.optional(),
  certificate: providerFields.certificate.optional(),
  ssoURL: providerFields.ssoURL.optional(),
  defaultTeam: providerFields.defaultTeam.optional(),
  defaultRole: providerFields.defaultRole.optional(),
  groupsAttribute: providerFields.groupsAttribute.optional(),
});
export const updateSamlProviderBody = z.object(providerFields).partial();

/** The largest ACS form post (a SAMLResponse is a few KB; identity refuses more than 512 KB of it). */
const ACS_BODY_LIMIT = 1024 * 1024;

/** This installation's addresses for one identity provider: its SP entity ID, ACS URL and start URL. */
function serviceOf(api: string, providerId: string) {
  const entityId = `${api}/v1/sso/saml/${encodeURIComponent(providerId)}`;
  return { entityId, acsUrl: `${entityId}/acs`, startUrl: `${entityId}/start` };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

/** The page a completed sign-in answers: the new token, shown once (never cached, no script). */
function signedInPage(input: { email: string; token: string; expiresAt: Date; apiUrl: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Signed in</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{display:block;padding:1rem;background:#f4f4f6;border-radius:.5rem;word-break:break-all;font-size:1rem}</style></head>
<body><main><h1>Signed in as ${escapeHtml(input.email)}</h1>
<p>Your API token (shown once; it works until ${escapeHtml(input.expiresAt.toISOString())}):</p>
<code id="token">${escapeHtml(input.token)}</code>
<p>Use it as a bearer token: <code>curl -H "Authorization: Bearer …" ${escapeHtml(input.apiUrl)}/v1/user</code></p></main></body></html>`;
}

/** SAML providers (admins) and single sign-on: GitBook's operations, plus the SP endpoints a sign-in goes through. */
export function samlRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const identity = upstreams.identity;
  const location = (organizationId: string, providerId: string) =>
    `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/saml/${encodeURIComponent(providerId)}`;
  /** GitBook's OrganizationSAMLProvider: the default team as a team object, the service's own URLs. */
  /**
   * A write passes the default teams it read before it was saved (`known`): its answer then asks
   * nobody, or (a team that changed meanwhile) asks on a best effort, leaving the optional
   * `defaultTeam` out rather than failing a change already applied.
   */
  const restProvider = async (provider: SamlProvider | undefined, known?: ReadonlyMap<string, RestTeam>) => {
    if (!provider) throw new AppError("internal", "upstream answered no SAML provider");
    const service = serviceOf(urls.api, provider.id);
    const teamId = provider.defaultTeamId;
    const readTeam = () => restTeamsById(upstreams, provider.organizationId, [teamId]).then((teams) => teams.get(teamId));
    const defaultTeam = !teamId ? undefined : !known ? await readTeam() : known.has(teamId) ? known.get(teamId) : await readTeam().catch(() => undefined);
    return {
      object: "saml-provider" as const,
      id: provider.id,
      label: provider.label,
      ssoURL: provider.ssoUrl,
      entityID: provider.entityId,
      certificate: provider.certificate,
      ...(defaultTeam ? { defaultTeam } : {}),
      defaultRole: toRestRole(provider.defaultRole),
      createdAt: (provider.createdAt ?? new Date(0)).toISOString(),
      status: provider.active ? ("active" as const) : ("pending" as const),
      service: { acsURL: service.acsUrl, startURL: service.startUrl, entityID: service.entityId },
      urls: { location: location(provider.organizationId, provider.id) },
    };
  };
  /** The default team a write will leave, as GitBook shows it, read before the write. */
  const teamsBefore = async (organizationId: string, teamId: string | null | undefined): Promise<ReadonlyMap<string, RestTeam>> =>
    teamId ? restTeamsById(upstreams, organizationId, [teamId]) : new Map();
  const values = (body: z.infer<typeof updateSamlProviderBody>) => ({
    label: body.label ?? "",
    entityId: body.entityID ?? "",
    ssoUrl: body.ssoURL ?? "",
    certificate: body.certificate ?? "",
    defaultTeamId: body.defaultTeam ?? "",
    defaultRole: body.defaultRole === undefined ? MemberRole.MEMBER_ROLE_UNSPECIFIED : toProtoRole(body.defaultRole),
    groupsAttribute: body.groupsAttribute ?? "",
  });
  const MASK: Record<keyof z.infer<typeof updateSamlProviderBody>, string> = {
    label: "label",
    entityID: "entity_id",
    ssoURL: "sso_url",
    certificate: "certificate",
    defaultTeam: "default_team_id",
    defaultRole: "default_role",
    groupsAttribute: "groups_attribute",
  };
  return [
    // listSAMLProvidersInOrganizationById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/saml",
      params: organizationParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await identity.saml.listSamlProviders({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
        });
        return ok(toPagedList(await Promise.all(response.providers.map((provider) => restProvider(provider))), response.page, cursors));
      },
    }),

    // createOrganizationSAMLProvider
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/saml",
      params: organizationParams,
      body: createSamlProviderBody,
      handler: async ({ params, body, principal }) => {
        const known = await teamsBefore(params.organizationId, body.defaultTeam);
        const response = await identity.saml.createSamlProvider({ caller: principal.caller, organizationId: params.organizationId, ...values(body) });
        const provider = await restProvider(response.provider, known);
        return created(provider, provider.urls.location);
      },
    }),

    // getOrganizationSAMLProviderById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/saml/:samlProviderId",
      params: providerParams,
      handler: async ({ params, principal }) =>
        ok(
          await restProvider(
            (await identity.saml.getSamlProvider({ caller: principal.caller, organizationId: params.organizationId, providerId: params.samlProviderId }))
              .provider,
          ),
        ),
    }),

    // updateOrganizationSAMLProvider
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/saml/:samlProviderId",
      params: providerParams,
      body: updateSamlProviderBody,
      handler: async ({ params, body, principal }) => {
        const updateMask = (Object.keys(body) as (keyof typeof MASK)[]).filter((key) => body[key] !== undefined).map((key) => MASK[key]);
        const teamId =
          body.defaultTeam !== undefined
            ? body.defaultTeam
            : (await identity.saml.getSamlProvider({ caller: principal.caller, organizationId: params.organizationId, providerId: params.samlProviderId }))
                .provider?.defaultTeamId;
        const known = await teamsBefore(params.organizationId, teamId);
        const response = await identity.saml.updateSamlProvider({
          caller: principal.caller,
          organizationId: params.organizationId,
          providerId: params.samlProviderId,
          values: { caller: undefined, organizationId: "", ...values(body) },
          updateMask,
        });
        return ok(await restProvider(response.provider, known));
      },
    }),

    // deleteOrganizationSAMLProvider: 205 when deleted, 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/saml/:samlProviderId",
      params: providerParams,
      handler: async ({ params, principal }) =>
        (await identity.saml.deleteSamlProvider({ caller: principal.caller, organizationId: params.organizationId, providerId: params.samlProviderId })).deleted
          ? resetContent()
          : noContent(),
    }),
  ];
}

/**
 * What a sign-in page and an identity provider reach without a token: the organization's providers
 * (listSSOProviderLoginsInOrganization), the start URL (a redirect to the provider with an
 * AuthnRequest) and the ACS URL (the provider's form post, answered with a page showing a new token).
 */
export function ssoRoutes({ upstreams, urls }: Pick<RouteDeps, "upstreams" | "urls">): DirectRoute[] {
  const identity = upstreams.identity;
  const providerId = z.object({ providerId: pathId() });
  return [
    {
      method: "GET",
      path: "/v1/orgs/:organizationId/sso",
      handle: async (ctx) => {
        const params = parseInput(organizationParams, ctx.params, "path");
        const { providers } = await identity.saml.listSsoProviders({ organizationId: params.organizationId });
        ctx.body = {
          items: providers.map((provider) => ({
            id: provider.id,
            label: provider.label,
            protocol: provider.protocol === "oidc" ? "oidc" : "saml",
            startURL: provider.protocol === "oidc" ? oidcStartUrl(urls, provider.id) : serviceOf(urls.api, provider.id).startUrl,
          })),
        };
      },
    },
    {
      method: "GET",
      path: "/v1/sso/saml/:providerId/start",
      handle: async (ctx) => {
        const params = parseInput(providerId, ctx.params, "path");
        const service = serviceOf(urls.api, params.providerId);
        const { redirectUrl } = await identity.saml.startSamlSignIn({ providerId: params.providerId, service });
        ctx.set("Cache-Control", "no-store");
        ctx.redirect(redirectUrl);
      },
    },
    {
      method: "POST",
      path: "/v1/sso/saml/:providerId/acs",
      handle: async (ctx) => {
        const params = parseInput(providerId, ctx.params, "path");
        const form = await readFormBody(ctx, ACS_BODY_LIMIT);
        const service = serviceOf(urls.api, params.providerId);
        const signIn = await identity.saml.completeSamlSignIn({ providerId: params.providerId, service, samlResponse: form.get("SAMLResponse") ?? "" });
        ctx.set("Cache-Control", "no-store");
        ctx.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
        ctx.set("Referrer-Policy", "no-referrer");
        ctx.type = "text/html; charset=utf-8";
        ctx.body = signedInPage({ email: signIn.user?.email ?? "", token: signIn.token, expiresAt: signIn.tokenExpiresAt ?? new Date(), apiUrl: urls.api });
      },
    },
  ];
}
