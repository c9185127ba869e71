import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findByKey } from "@imprint/runtime";
import { requireOrganizationMembership, type CallerInput, type Membership } from "../../access/index.js";
import { OpenApiSpec } from "../domain/entities.js";
import { openApiSpecPermissions, type OpenApiSpecPermissions } from "../domain/permissions.js";
import { isOpenApiSlug } from "../domain/validation.js";
import type { AccessDeps } from "../../deps.js";

export interface OrganizationSpecAccess {
  membership: Membership;
  permissions: OpenApiSpecPermissions;
}

/** The caller's permissions on the organization's specifications; non-members get "Organization not found". */
export async function requireSpecsAccess(deps: AccessDeps, organizationId: string, caller: CallerInput | undefined): Promise<OrganizationSpecAccess> {
  const membership = await requireOrganizationMembership(deps, organizationId, caller);
  return { membership, permissions: openApiSpecPermissions(membership) };
}

export function requireSpecEditing(access: OrganizationSpecAccess): void {
  if (!access.permissions.edit) throw AppError.permissionDenied(`You need the "createOpenAPISpec" permission in this organization`);
}

/**
 * The specification with this slug if the caller can view it: a slug that cannot exist, a missing
 * specification and one the caller cannot see all answer "OpenAPI specification not found".
 */
export async function findVisibleSpec(
  em: EntityManager,
  access: OrganizationSpecAccess,
  input: { organizationId: string; slug: string; lock?: boolean },
): Promise<OpenApiSpec | null> {
  if (!access.permissions.view || !isOpenApiSlug(input.slug)) return null;
  return findByKey(em, OpenApiSpec, { organizationId: input.organizationId, slug: input.slug }, { lock: input.lock ?? false });
}
