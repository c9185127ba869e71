import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import type { OrganizationView } from "../shared/views.js";
import { findEnabledMembershipWithOrganization } from "../shared/hot-path-queries.js";
import { assertSsoAllowsToken } from "../shared/sso.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

export interface GetOrganizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
}

/** One query: the caller's membership joined with its organization. Non-members get "not found". */
export async function getOrganization(em: EntityManager, input: GetOrganizationInput, deps: UseCaseDeps): Promise<OrganizationView> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  const membership = await findEnabledMembershipWithOrganization(em, input.organizationId, caller.userId);
  if (!membership) throw AppError.notFound("Organization");
  await assertSsoAllowsToken(em, {
    organizationId: input.organizationId,
    organizationSso: membership.organization.sso,
    signInMethods: membership.organization.signInMethods ?? [],
    role: membership.role,
    tokenId: caller.tokenId,
    now: deps.clock(),
  });
  return { organization: membership.organization, permissions: organizationPermissionsFor(membership.role) };
}
