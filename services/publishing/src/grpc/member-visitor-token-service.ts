import type { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { issueMemberVisitorToken } from "../use-cases/member-visitor-tokens/issue-member-visitor-token.js";
import { verifyMemberVisitorToken } from "../use-cases/member-visitor-tokens/verify-member-visitor-token.js";

export const MEMBER_VISITOR_TOKEN_SERVICE_NAME = "imprint.publishing.v1.MemberVisitorTokenService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function memberVisitorTokenServiceImplementation(
  em: () => EntityManager,
  deps: UseCaseDeps,
): AsyncImplementation<typeof MemberVisitorTokenServiceService> {
  return {
    issueMemberVisitorToken: async (request) => ({
      token: await issueMemberVisitorToken(em(), { caller: request.caller, organizationId: request.organizationId }, deps),
    }),

    verifyMemberVisitorToken: async (request) => {
      const claims = await verifyMemberVisitorToken(em(), { organizationId: request.organizationId, token: request.token }, deps);
      return claims
        ? { valid: true, userId: claims.userId, email: claims.email, role: claims.role, teams: claims.teams, expiresAt: claims.expiresAt }
        : { valid: false, userId: "", email: "", role: "", teams: [] };
    },
  };
}
