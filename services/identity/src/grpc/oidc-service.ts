import { OidcServiceService, type OidcProvider as OidcProviderMessage } from "@imprint/proto/identity/v1/oidc";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { OidcProvider } from "../domain/oidc-provider.js";
import { createOidcProvider, deleteOidcProvider, getOidcProvider, listOidcProviders, updateOidcProvider } from "../use-cases/oidc/manage-providers.js";
import { completeOidcSignIn, startOidcSignIn } from "../use-cases/oidc/sign-in.js";
import type { UseCaseDeps } from "../deps.js";
import { idOf } from "../use-cases/shared/queries.js";
import { startedToProto } from "./session-service.js";

export const OIDC_SERVICE_NAME = "imprint.identity.v1.OidcService";

/** A provider as the API shows it: never its client secret. */
function oidcProviderToProto(provider: OidcProvider): OidcProviderMessage {
  return {
    id: provider.id,
    organizationId: idOf(provider.organization),
    label: provider.label,
    issuer: provider.issuer,
    clientId: provider.clientId,
    createdAt: provider.createdAt,
  };
}

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to proto messages. */
export function oidcServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof OidcServiceService> {
  return {
    listOidcProviders: async (request) => {
      const page = await listOidcProviders(
        em(),
        { caller: request.caller, organizationId: request.organizationId, page: pageRequest(request.page) },
        useCaseDeps,
      );
      return { providers: page.items.map(oidcProviderToProto), page: { nextPageToken: page.nextPageToken, totalCount: page.totalCount } };
    },

    createOidcProvider: async (request) => ({
      provider: oidcProviderToProto(
        await createOidcProvider(
          em(),
          {
            caller: request.caller,
            organizationId: request.organizationId,
            values: { label: request.label, issuer: request.issuer, clientId: request.clientId, clientSecret: request.clientSecret },
          },
          useCaseDeps,
        ),
      ),
    }),

    getOidcProvider: async (request) => ({
      provider: oidcProviderToProto(
        await getOidcProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),
      ),
    }),

    updateOidcProvider: async (request) => {
      const values = request.values;
      const provider = await updateOidcProvider(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          providerId: request.providerId,
          updateMask: request.updateMask ?? [],
          values: { label: values?.label, issuer: values?.issuer, clientId: values?.clientId, clientSecret: values?.clientSecret },
        },
        useCaseDeps,
      );
      return { provider: oidcProviderToProto(provider) };
    },

    deleteOidcProvider: async (request) =>
      deleteOidcProvider(em(), { caller: request.caller, organizationId: request.organizationId, providerId: request.providerId }, useCaseDeps),

    startOidcSignIn: async (request) => ({
      authorizationUrl: await startOidcSignIn(
        em(),
        { providerId: request.providerId, redirectUri: request.redirectUri, returnPath: request.returnPath, inviteId: request.inviteId },
        useCaseDeps,
      ),
    }),

    completeOidcSignIn: async (request) => {
      const result = await completeOidcSignIn(em(), { redirectUri: request.redirectUri, query: request.query }, useCaseDeps);
      return { started: startedToProto(result.started), returnPath: result.returnPath, organizationId: result.organizationId };
    },
  };
}
