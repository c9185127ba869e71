import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { OpenApiSpec } from "../domain/entities.js";
import { openApiSpecCreated, openApiSpecUpdated, recordContentEvent } from "../../events.js";
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
  recordContentEvent(em, deps, openApiSpecCreated, {
    organizationId: input.organizationId,
    actor: input.caller,
    payload: { specId: spec.id, slug: spec.slug, sourceUrl: spec.sourceUrl },
  });
  return spec;
}

/**
 * Points an existing specification at `sourceUrl` (possibly the same) and queues it again: a new
 * generation, so a worker still busy with the previous one discards its result. The last version,
 * processing time and errors stay as they are until the new processing finishes.
 */
export function resubmitSpec(em: EntityManager, deps: Pick<OpenApiDeps, "clock">, spec: OpenApiSpec, sourceUrl: string, caller: CallerInput): void {
  const previousSourceUrl = spec.sourceUrl;
  spec.sourceUrl = sourceUrl;
  spec.sourceGeneration += 1;
  spec.processingState = "pending";
  spec.claimedGeneration = null;
  spec.leaseExpiresAt = null;
  spec.updatedAt = deps.clock();
  recordContentEvent(em, deps, openApiSpecUpdated, {
    organizationId: spec.organizationId,
    actor: caller,
    payload: { specId: spec.id, slug: spec.slug, sourceUrl, previousSourceUrl },
  });
}
