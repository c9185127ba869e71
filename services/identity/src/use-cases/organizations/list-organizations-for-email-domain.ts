import type { EntityManager } from "@mikro-orm/postgresql";
import { Member } from "../../domain/member.js";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import type { OrganizationView } from "../shared/views.js";
import { normalizeEmailDomain, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface ListOrganizationsForEmailDomainInput {
  caller: CallerInput | undefined;
  emailDomain: string;
}

/**
 * Organizations claiming the domain, among the caller's own: other organizations are never
 * revealed, whatever domains they claim.
 */
export async function listOrganizationsForEmailDomain(
  em: EntityManager,
  input: ListOrganizationsForEmailDomainInput,
  _deps: UseCaseDeps,
): Promise<OrganizationView[]> {
  const caller = requireCaller(input.caller);
  const domain = normalizeEmailDomain("email_domain", input.emailDomain);
  const members = await em.find(
    Member,
    { user: caller.userId, disabled: false, organization: { emailDomains: { $contains: [domain] } } },
    { populate: ["organization"], orderBy: { joinedAt: "asc", id: "asc" } },
  );
  return members.map((member) => ({ organization: member.organization, permissions: organizationPermissionsFor(member.role) }));
}
