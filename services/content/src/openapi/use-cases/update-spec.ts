import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { validateVisibility } from "../domain/validation.js";
import { openApiSpecUpdated } from "../../events.js";
import { findVisibleSpec, requireSpecEditing, requireSpecsAccess } from "../store/access.js";
import { openApiSpecView, type OpenApiSpecView } from "../store/views.js";
import type { OpenApiDeps } from "../../deps.js";

const UPDATABLE_FIELDS = ["visibility"] as const;

export interface UpdateOpenApiSpecInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
  updateMask: readonly string[] | undefined;
  visibility: string;
}

/**
 * GitBook's updateOpenAPISpecBySlug: changes the fields the mask names (its visibility) without
 * processing the source again. Needs the edit permission; records `openapi_spec.updated` when
 * something changed.
 */
export async function updateOpenApiSpec(em: EntityManager, input: UpdateOpenApiSpecInput, deps: OpenApiDeps): Promise<OpenApiSpecView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const visibility = fields.has("visibility") ? validateVisibility(input.visibility) : undefined;
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  return deps.unitOfWork.run(em, async (tx) => {
    const spec = await findVisibleSpec(tx, access, { organizationId: input.organizationId, slug: input.slug, lock: true });
    if (!spec) throw AppError.notFound("OpenAPI specification");
    requireSpecEditing(access);
    if (visibility !== undefined && visibility !== spec.visibility) {
      spec.visibility = visibility;
      spec.updatedAt = deps.clock();
      recordEvent(tx, openApiSpecUpdated, {
        organizationId: spec.organizationId,
        actor: input.caller!,
        payload: { specId: spec.id, slug: spec.slug, sourceUrl: spec.sourceUrl, previousSourceUrl: spec.sourceUrl, visibility },
      });
    }
    await tx.flush();
    return openApiSpecView(tx, spec, access.permissions);
  });
}
