import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { OpenApiSpec } from "../domain/entities.js";
import { openApiSpecCreated, openApiSpecUpdated } from "../../events.js";
import type { OpenApiDeps } from "../../deps.js";

/** A new specification waiting for its first processing (created and recorded in `em`'s unit of work). */
export function createPendingSpec(
  em: EntityManager,
  deps: Pick<OpenApiDeps, "clock">,
  input: { organizationId: string; slug: string; sourceUrl: string; caller: CallerInput },
): OpenApiSpec {
  const now = deps.clock();
  const spec = em.create(OpenApiSpec, {
    organizationId: input.organizationId,
    slug: input.slug,
    sourceUrl: input.sourceUrl,
    processingState: "pending",
    sourceGeneration: 1,
    claimedGeneration: null,
    leaseExpiresAt: null,
    lastVersionId: null,
    lastProcessedAt: null,
    lastProcessErrorCode: null,
    lastProcessErrors: [],
    lastProcessErrorCount: 0,
    createdBy: input.caller.userId,
    createdAt: now,
    updatedAt: now,
  });
  recordEvent(em, openApiSpecCreated, {
    organizationId: input.organizationId,
    actor: input.caller,
    payload: { specId: spec.id, slug: spec.slug, sourceUrl: spec.sourceUrl },
  });
  return spec;
}

/** Queues an existing specification again from `sourceUrl` ({@link OpenApiSpec.resubmit}) and records the update. */
export function resubmitSpec(em: EntityManager, deps: Pick<OpenApiDeps, "clock">, spec: OpenApiSpec, sourceUrl: string, caller: CallerInput): void {
  const previousSourceUrl = spec.resubmit(sourceUrl, deps.clock());
  recordEvent(em, openApiSpecUpdated, {
    organizationId: spec.organizationId,
    actor: caller,
    payload: { specId: spec.id, slug: spec.slug, sourceUrl, previousSourceUrl, visibility: spec.visibility },
  });
}
