import { SamlServiceService } from "@imprint/proto/identity/v1/saml";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { MemberRole } from "@imprint/proto/identity/v1";
import { type CreateSamlProviderRequest } from "@imprint/proto/identity/v1/saml";
import { createSamlProvider, deleteSamlProvider, getSamlProvider, listSamlProviders, listSsoProviders, updateSamlProvider, type SamlProviderValues } from "../use-cases/saml/manage-providers.js";
import { completeSamlSignIn, startSamlSignIn } from "../use-cases/saml/sign-in.js";
import type { UseCaseDeps } from "../deps.js";
import { roleFromProto, samlProviderToProto, userToProto } from "./mappers.js";

export const SAML_SERVICE_NAME = "imprint.identity.v1.SamlService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function samlServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof SamlServiceService> {
  return {
    listSamlProviders: async (request) => {
      const page = await listSamlProviders(em(), { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) }, useCaseDeps);
      return { providers: page.items.map(samlProviderToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createSamlProvider: async (request) => {
      const provider = await createSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, values: samlValuesFromProto(request, undefined) }, useCaseDeps);
      return { provider: samlProviderToProto(provider) };
    },

    getSamlProvider: async (request) => ({
      provider: samlProviderToProto(await getSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps)),
    }),

    updateSamlProvider: async (request) => {
      const values = samlValuesFromProto(request.values ?? ({} as never), request.updateMask ?? []);
      const provider = await updateSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId, values }, useCaseDeps);
      return { provider: samlProviderToProto(provider) };
    },

    deleteSamlProvider: async (request) => deleteSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),

    listSsoProviders: async (request) => ({ providers: await listSsoProviders(em(), { organizationId: request.organizationId }, useCaseDeps) }),

    startSamlSignIn: async (request) => ({ redirectUrl: await startSamlSignIn(em(), { providerId: request.providerId, service: request.service }, useCaseDeps) }),

    completeSamlSignIn: async (request) => {
      const signIn = await completeSamlSignIn(em(), { providerId: request.providerId, service: request.service, samlResponse: request.samlResponse }, useCaseDeps);
      return { user: userToProto(signIn.user), organizationId: signIn.organizationId, token: signIn.token, tokenExpiresAt: signIn.tokenExpiresAt };
    },
  };
}

function samlValuesFromProto(request: CreateSamlProviderRequest, mask: string[] | undefined): SamlProviderValues {
  const named = (field: (typeof SAML_MASK_FIELDS)[number]) => mask === undefined || mask.includes(field);
  for (const path of mask ?? []) if (!(SAML_MASK_FIELDS as readonly string[]).includes(path)) throw AppError.invalidArgument(`update_mask: unknown field ${path}`);
  const values: SamlProviderValues = {};
  if (named("label")) values.label = request.label;
  if (named("entity_id")) values.entityId = request.entityId;
  if (named("sso_url")) values.ssoUrl = request.ssoUrl;
  if (named("certificate")) values.certificate = request.certificate;
  if (named("default_team_id")) values.defaultTeamId = request.defaultTeamId;
  if (named("default_role")) {
    if (request.defaultRole === MemberRole.MEMBER_ROLE_UNSPECIFIED) {
      if (mask === undefined) values.defaultRole = "organization";
      else throw AppError.invalidArgument("defaultRole: must be a role or null");
    } else {
      const role = roleFromProto(request.defaultRole);
      if (role === undefined) throw AppError.invalidArgument("defaultRole: must be a role or null");
      values.defaultRole = role;
    }
  }
  if (named("groups_attribute")) values.groupsAttribute = request.groupsAttribute;
  return values;
}

const SAML_MASK_FIELDS = ["label", "entity_id", "sso_url", "certificate", "default_team_id", "default_role", "groups_attribute"] as const;
