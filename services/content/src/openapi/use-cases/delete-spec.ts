import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { findVisibleSpec, requireSpecsAccess } from "../store/access.js";
import { OpenApiSpecVersion } from "../domain/entities.js";
import { openApiSpecDeleted } from "../../events.js";
import type { OpenApiDeps } from "../../deps.js";

export interface DeleteOpenApiSpecInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
}

/**
 * Deletes a specification with all its versions (`createOpenAPISpec` permission). One that does
 * not exist, or that the caller cannot see, is "already gone": `deleted` is false. A worker busy
 * with it finds the row gone and drops its result.
 */
export async function deleteOpenApiSpec(em: EntityManager, input: DeleteOpenApiSpecInput, deps: OpenApiDeps): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const access = await requireSpecsAccess(deps, input.organizationId, caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    const spec = await findVisibleSpec(tx, access, { organizationId: input.organizationId, slug: input.slug, lock: true });
    if (!spec) return false;
    if (!access.permissions.edit) throw AppError.permissionDenied(`You need the "createOpenAPISpec" permission in this organization`);
    await tx.nativeDelete(OpenApiSpecVersion, { specId: spec.id });
    tx.remove(spec);
    recordEvent(tx, openApiSpecDeleted, {
      organizationId: spec.organizationId,
      actor: caller,
      payload: { specId: spec.id, slug: spec.slug },
    });
    return true;
  });
  return { deleted };
}
