import { TokenServiceService } from "@imprint/proto/identity/v1/tokens";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type AsyncImplementation } from "@imprint/runtime";
import { authenticateToken } from "../use-cases/tokens/authenticate-token.js";
import { issueCallerToken } from "../use-cases/tokens/issue-caller-token.js";
import { issueInstallationToken } from "../use-cases/tokens/issue-installation-token.js";
import { issueToken } from "../use-cases/tokens/issue-token.js";
import { revokeInstallationTokens } from "../use-cases/tokens/revoke-installation-tokens.js";
import { revokeToken } from "../use-cases/tokens/revoke-token.js";
import type { UseCaseDeps } from "../deps.js";
import { ownTokenToProto, roleFromProto, sessionToProto, userToProto } from "./mappers.js";
import { createOwnToken } from "../use-cases/tokens/create-own-token.js";
import { listOwnTokens } from "../use-cases/tokens/list-own-tokens.js";
import { revokeOwnToken } from "../use-cases/tokens/revoke-own-token.js";

export const TOKEN_SERVICE_NAME = "imprint.identity.v1.TokenService";

/**
 * Thin transport: each handler checks the request's shape (enums), runs one use case on a fresh
 * EntityManager (`em()`) with the deps service.ts built, and maps the result to proto messages.
 * Rules live in the use cases and the domain.
 */
export function tokenServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof TokenServiceService> {
  return {
    authenticateToken: async (request) => {
      const principal = await authenticateToken(em(), { token: request.token, session: request.session ?? false }, useCaseDeps);
      return {
        caller: { userId: principal.user.id, tokenId: principal.tokenId },
        user: userToProto(principal.user),
        expiresAt: principal.expiresAt ?? undefined,
        session: principal.session ? sessionToProto(principal.session) : undefined,
      };
    },

    issueToken: async (request) => issueToken(em(), { email: request.email, label: request.label }, useCaseDeps),

    revokeToken: async (request) => revokeToken(em(), { token: request.token, tokenId: request.tokenId }, useCaseDeps),

    issueInstallationToken: async (request) =>
      issueInstallationToken(
        em(),
        {
          organizationId: request.organizationId,
          installationId: request.installationId,
          integrationName: request.integrationName,
          integrationTitle: request.integrationTitle,
          role: roleFromProto(request.role),
          ttlSeconds: request.ttlSeconds,
        },
        useCaseDeps,
      ),

    revokeInstallationTokens: async (request) => revokeInstallationTokens(em(), { installationId: request.installationId }, useCaseDeps),

    issueCallerToken: async (request) => issueCallerToken(em(), { caller: request.caller, label: request.label, ttlSeconds: request.ttlSeconds }, useCaseDeps),

    listOwnTokens: async (request) => ({ tokens: (await listOwnTokens(em(), { caller: request.caller }, useCaseDeps)).map(ownTokenToProto) }),

    createOwnToken: async (request) => {
      const { token, secret } = await createOwnToken(em(), { caller: request.caller, label: request.label, expiresAt: request.expiresAt }, useCaseDeps);
      return { token: ownTokenToProto(token), secret };
    },

    revokeOwnToken: async (request) => revokeOwnToken(em(), { caller: request.caller, tokenId: request.tokenId }, useCaseDeps),
  };
}
