import { UniqueConstraintViolationException, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireFetchTarget } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { requireSpecEditing, requireSpecsAccess } from "../store/access.js";
import { OPENAPI_PROCESSING_JOB } from "../jobs/processor.js";
import { OpenApiSpec } from "../domain/entities.js";
import { validateOpenApiSlug, validateSourceUrl } from "../domain/validation.js";
import { openApiSpecView, type OpenApiSpecView } from "../store/views.js";
import { createPendingSpec } from "./submit-source.js";
import type { OpenApiDeps } from "../../deps.js";

export interface CreateOpenApiSpecInput {
  caller: CallerInput | undefined;
  organizationId: string;
  slug: string;
  sourceUrl: string;
}

function slugTaken(slug: string): AppError {
  return new AppError("already_exists", `slug: an OpenAPI specification with slug "${slug}" already exists in this organization`);
}

/** Registers a specification (state `pending`); the processor fetches it in the background. */
export async function createOpenApiSpec(em: EntityManager, input: CreateOpenApiSpecInput, deps: OpenApiDeps): Promise<OpenApiSpecView> {
  const slug = validateOpenApiSlug(input.slug);
  const sourceUrl = validateSourceUrl(input.sourceUrl);
  const access = await requireSpecsAccess(deps, input.organizationId, input.caller);
  requireSpecEditing(access);
  // The job fetches it later: a private target is refused now, where the caller sees why.
  await requireFetchTarget(sourceUrl, deps.fetchPolicy, "source.url");
  const caller = input.caller!;
  let view: OpenApiSpecView;
  try {
    view = await deps.unitOfWork.run(em, async (tx) => {
      if (await tx.count(OpenApiSpec, { organizationId: input.organizationId, slug })) throw slugTaken(slug);
      const spec = createPendingSpec(tx, deps, { organizationId: input.organizationId, slug, sourceUrl, caller });
      await tx.flush();
      return openApiSpecView(tx, spec, access.permissions);
    });
  } catch (error) {
    // Two creations of one slug at once: the unique index decides.
    if (error instanceof UniqueConstraintViolationException) throw slugTaken(slug);
    throw error;
  }
  deps.jobs.wake(OPENAPI_PROCESSING_JOB);
  return view;
}
