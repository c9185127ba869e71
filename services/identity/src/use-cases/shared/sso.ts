import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql } from "@imprint/runtime";
import type { MemberRoleValue } from "../../domain/roles.js";

/**
 * In an organization that requires single sign-on (`sso: true`), members other than admins act
 * only with tokens issued by a sign-in through one of its SAML providers, or with tokens of an
 * integration installation's principal (no person signs in with those), still valid. Any other
 * token finds no such organization (404, as for non-members). `tokenId` undefined: the check acts
 * for no request (e.g. what another member may access), so it does not apply.
 */
export async function assertSsoAllowsToken(
  em: EntityManager,
  input: { organizationId: string; organizationSso: boolean; role: MemberRoleValue; tokenId: string | undefined; now: Date },
): Promise<void> {
  if (!input.organizationSso || input.role === "admin" || input.tokenId === undefined) return;
  const [row] = input.tokenId
    ? await queryRows(
        em,
        sql<{ ok: number }>`select 1 as ok from api_tokens t join users u on u.id = t.user_id left join saml_providers p on p.id = t.saml_provider_id
          where t.id = ${input.tokenId} and (p.organization_id = ${input.organizationId} or u.integration_installation_id is not null)
            and t.revoked_at is null and (t.expires_at is null or t.expires_at > ${input.now})`,
      )
    : [];
  if (!row) throw AppError.notFound("Organization");
}
