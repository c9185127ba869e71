import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { organizationPermissionsFor } from "../domain/permissions.js";
import type { OrganizationView } from "./shared/views.js";
import { findEnabledMembershipWithOrganization } from "./shared/hot-path-queries.js";
import { isId, requireCaller } from "./shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../deps.js";

export interface GetOrganizationInput {
  caller: CallerInput | undefined;
  organizationId: string;
}

/** One query: the caller's membership joined with its organization. Non-members get "not found". */
export async function getOrganization(em: EntityManager, input: GetOrganizationInput, _deps: UseCaseDeps): Promise<OrganizationView> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  const membership = await findEnabledMembershipWithOrganization(em, input.organizationId, caller.userId);
  if (!membership) throw AppError.notFound("Organization");
  return { organization: membership.organization, permissions: organizationPermissionsFor(membership.role) };
}
