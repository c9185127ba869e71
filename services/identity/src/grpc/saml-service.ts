import { CreateSamlProviderRequest, SamlServiceService } from "@imprint/proto/identity/v1/saml";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { MemberRole } from "@imprint/proto/identity/v1";
import {
  createSamlProvider,
  deleteSamlProvider,
  getSamlProvider,
  listSamlProviders,
  listSsoProviders,
  updateSamlProvider,
  type SamlProviderValues,
} from "../use-cases/saml/manage-providers.js";
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
      const page = await listSamlProviders(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) },
        useCaseDeps,
      );
      return { providers: page.items.map(samlProviderToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createSamlProvider: async (request) => {
      const provider = await createSamlProvider(
        em(),
        { caller: request.caller, organizationId: request.organizationId, values: samlValuesFromProto(request, "create") },
        useCaseDeps,
      );
      return { provider: samlProviderToProto(provider) };
    },

    getSamlProvider: async (request) => ({
      provider: samlProviderToProto(
        await getSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),
      ),
    }),

    updateSamlProvider: async (request) => {
      const values = samlValuesFromProto(CreateSamlProviderRequest.fromPartial(request.values ?? {}), "update");
      const provider = await updateSamlProvider(
        em(),
        { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId, updateMask: request.updateMask ?? [], values },
        useCaseDeps,
      );
      return { provider: samlProviderToProto(provider) };
    },

    deleteSamlProvider: async (request) =>
      deleteSamlProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),

    listSsoProviders: async (request) => ({ providers: await listSsoProviders(em(), { organizationId: request.organizationId }, useCaseDeps) }),

    startSamlSignIn: async (request) => ({
      redirectUrl: await startSamlSignIn(em(), { providerId: request.providerId, service: request.service }, useCaseDeps),
    }),

    completeSamlSignIn: async (request) => {
      const signIn = await completeSamlSignIn(
        em(),
        { providerId: request.providerId, service: request.service, samlResponse: request.samlResponse },
        useCaseDeps,
      );
      return { user: userToProto(signIn.user), organizationId: signIn.organizationId, token: signIn.token, tokenExpiresAt: signIn.tokenExpiresAt };
    },
  };
}

/**
 * Every setting of a create request, or of an update's values (the use case keeps those its mask
 * names). MEMBER_ROLE_UNSPECIFIED at creation means the organization's default role; in an update,
 * it and a value that is no role are undefined.
 */
function samlValuesFromProto(request: CreateSamlProviderRequest, use: "create" | "update"): SamlProviderValues {
  let defaultRole: SamlProviderValues["defaultRole"];
  if (request.defaultRole === MemberRole.MEMBER_ROLE_UNSPECIFIED) {
    defaultRole = use === "create" ? "organization" : undefined;
  } else {
    defaultRole = roleFromProto(request.defaultRole);
    if (defaultRole === undefined && use === "create") throw AppError.invalidArgument("defaultRole: must be a role or null");
  }
  return {
    label: request.label,
    entityId: request.entityId,
    ssoUrl: request.ssoUrl,
    certificate: request.certificate,
    defaultTeamId: request.defaultTeamId,
    defaultRole,
    groupsAttribute: request.groupsAttribute,
  };
}
