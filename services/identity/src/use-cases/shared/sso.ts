import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql } from "@imprint/runtime";
import { SIGN_IN_METHODS, signInMethodOf } from "../../domain/session.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { isId } from "./validation.js";

/** The method a session was signed in with, when `tokenId` is a session's; undefined for an API token's. */
export async function sessionMethod(em: EntityManager, tokenId: string): Promise<string | undefined> {
  if (!isId(tokenId)) return undefined;
  const [row] = await queryRows(em, sql<{ method: string }>`select method from sessions where id = ${tokenId}`);
  return row?.method;
}

/**
 * How a request's credential may act in an organization:
 *
 * - A session signed in with a method the organization does not allow (`signInMethods`, "password",
 *   "oidc", "saml") is refused with 403, admins' included: the organization says how its members
 *   sign in. API tokens are no sign-in method and are not concerned.
 * - In an organization that requires single sign-on (`sso: true`), members other than admins act
 *   only with tokens issued by a sign-in through one of its SAML providers (or sessions of such a
 *   sign-in, "saml:<providerId>"), or with tokens of an integration installation's principal (no
 *   person signs in with those), still valid. Any other token or session finds no such
 *   organization (404, as for non-members); a password session counts as a non-SAML token.
 *
 * `tokenId` undefined: the check acts for no request (e.g. what another member may access), so it
 * does not apply.
 */
export async function assertSsoAllowsToken(
  em: EntityManager,
  input: {
    organizationId: string;
    organizationSso: boolean;
    /** The organization's allowed sign-in methods. */
    signInMethods: readonly string[];
    role: MemberRoleValue;
    tokenId: string | undefined;
    now: Date;
  },
): Promise<void> {
  if (input.tokenId === undefined) return;
  const allowed = input.signInMethods;
  const restricted = SIGN_IN_METHODS.some((method) => !allowed.includes(method));
  const ssoApplies = input.organizationSso && input.role !== "admin";
  if (!restricted && !ssoApplies) return;
  const method = input.tokenId ? await sessionMethod(em, input.tokenId) : undefined;
  if (method !== undefined && !allowed.includes(signInMethodOf(method))) {
    throw AppError.permissionDenied(
      `This organization does not allow signing in with ${signInMethodOf(method)} (its signInMethods: ${allowed.join(", ")}): sign in another way`,
    );
  }
  if (!ssoApplies) return;
  const [row] = !input.tokenId
    ? []
    : method !== undefined
      ? await queryRows(
          em,
          sql<{ ok: number }>`select 1 as ok from sessions s join saml_providers p on s.method = 'saml:' || p.id::text
            where s.id = ${input.tokenId} and p.organization_id = ${input.organizationId}`,
        )
      : await queryRows(
          em,
          sql<{ ok: number }>`select 1 as ok from api_tokens t join users u on u.id = t.user_id left join saml_providers p on p.id = t.saml_provider_id
          where t.id = ${input.tokenId} and (p.organization_id = ${input.organizationId} or u.integration_installation_id is not null)
            and t.revoked_at is null and (t.expires_at is null or t.expires_at > ${input.now})`,
        );
  if (!row) throw AppError.notFound("Organization");
}
