import { UniqueConstraintViolationException, type EntityManager } from "@mikro-orm/postgresql";
import { requireFetchTarget } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { findVisibleSpec, requireSpecEditing, requireSpecsAccess } from "../store/access.js";
import { OPENAPI_PROCESSING_JOB } from "../jobs/processor.js";
import { validateOpenApiSlug, validateSourceUrl } from "../domain/validation.js";
import { openApiSpecView, type OpenApiSpecView } from "../store/views.js";
import { createPendingSpec, resubmitSpec } from "./submit-source.js";
import type { OpenApiDeps } from "../../deps.js";

export interface PutOpenApiSpecInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
  sourceUrl: string;
}

/**
 * GitBook's createOrUpdateOpenAPISpecBySlug: points the specification at the source, creating it
 * when the slug is free, and queues it for processing either way (the same URL is fetched again:
 * its content may have changed; unchanged content keeps the current version).
 */
export async function putOpenApiSpec(em: EntityManager, input: PutOpenApiSpecInput, deps: OpenApiDeps): Promise<{ view: OpenApiSpecView; created: boolean }> {
  const slug = validateOpenApiSlug(input.slug, "specSlug");
  const sourceUrl = validateSourceUrl(input.sourceUrl);
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  requireSpecEditing(access);
  // The job fetches it later: a private target is refused now, where the caller sees why.
  await requireFetchTarget(sourceUrl, deps.fetchPolicy, "source.url");
  const caller = input.caller!;
  const attempt = () =>
    deps.unitOfWork.run(em.fork(), async (tx) => {
      const existing = await findVisibleSpec(tx, access, { organizationId: input.organizationId, slug, lock: true });
      if (existing) {
        resubmitSpec(tx, deps, existing, sourceUrl, caller);
        await tx.flush();
        return { view: await openApiSpecView(tx, existing, access.permissions), created: false };
      }
      const spec = createPendingSpec(tx, deps, { organizationId: input.organizationId, slug, sourceUrl, caller });
      await tx.flush();
      return { view: await openApiSpecView(tx, spec, access.permissions), created: true };
    });
  let result: { view: OpenApiSpecView; created: boolean };
  try {
    result = await attempt();
  } catch (error) {
    // Created concurrently by another request: now it exists, so this one updates it.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    result = await attempt();
  }
  deps.jobs.wake(OPENAPI_PROCESSING_JOB);
  return result;
}
