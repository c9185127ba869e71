import type { EntityManager } from "@mikro-orm/postgresql";
import { findOwnedOrNull, sql, WorkQueue, type Clock, type UnitOfWork, recordEvent } from "@imprint/runtime";
import { OpenApiSpec, OpenApiSpecVersion } from "../domain/entities.js";
import { openApiSpecProcessed } from "../../events.js";
import type { ProcessingOutcome } from "./outcome.js";

/** A specification a worker holds: the source of one generation to process. */
export interface ClaimedSpec {
  specId: string;
  organizationId: string;
  slug: string;
  sourceUrl: string;
  generation: number;
}

/**
 * The `openapi_specs` queue: specifications waiting for processing, and those whose worker's lease
 * ran out (a crashed or stopped process). A worker's claim is the source generation it processes.
 */
const specQueue = new WorkQueue({ table: "openapi_specs", open: sql`processing_state in ('pending', 'progress')`, order: sql`updated_at, id` });

/** Takes the oldest due specification and marks it `progress`. */
export async function claimNextSpec(em: EntityManager, deps: { clock: Clock }, leaseMs: number): Promise<ClaimedSpec | null> {
  const now = deps.clock();
  const [row] = await specQueue.claim(em, {
    now,
    leaseMs,
    set: sql`processing_state = 'progress', claimed_generation = source_generation, updated_at = ${now}`,
    returning: sql<{
      id: string;
      organization_id: string;
      slug: string;
      source_url: string;
      source_generation: number;
    }>`id, organization_id, slug, source_url, source_generation`,
  });
  if (!row) return null;
  return { specId: row.id, organizationId: row.organization_id, slug: row.slug, sourceUrl: row.source_url, generation: row.source_generation };
}

export type FinishResult = { recorded: true; versionId: string | null; newVersion: boolean } | { recorded: false; reason: "deleted" | "superseded" };

/**
 * Records the outcome of processing `claim`, unless the specification was deleted or re-sourced
 * meanwhile (then the newer generation is already queued and this result is stale). A document
 * whose bytes hash like the latest version's keeps that version.
 */
export async function finishSpec(
  em: EntityManager,
  deps: { clock: Clock; unitOfWork: UnitOfWork },
  claim: ClaimedSpec,
  outcome: ProcessingOutcome,
): Promise<FinishResult> {
  return deps.unitOfWork.run(em, async (tx) => {
    const spec = await findOwnedOrNull(tx, OpenApiSpec, {}, claim.specId, { lock: true });
    if (!spec) return { recorded: false, reason: "deleted" } as const;
    if (!spec.isCurrentGeneration(claim.generation)) return { recorded: false, reason: "superseded" } as const;
    const now = deps.clock();
    let newVersionId: string | null = null;
    if (outcome.ok) {
      const latest = spec.lastVersionId ? await tx.findOne(OpenApiSpecVersion, { id: spec.lastVersionId }, { fields: ["id", "contentHash"] }) : null;
      if (!latest || latest.contentHash !== outcome.document.contentHash) {
        const { document } = outcome;
        const version = tx.create(OpenApiSpecVersion, {
          specId: spec.id,
          sourceUrl: claim.sourceUrl,
          contentHash: document.contentHash,
          title: document.title,
          apiVersion: document.apiVersion,
          specification: document.specification,
          format: document.format,
          sizeBytes: document.sizeBytes,
          rawText: document.rawText,
          document: document.document,
          createdAt: now,
        });
        newVersionId = version.id;
      }
      spec.completeWithVersion(newVersionId, now);
    } else {
      spec.completeWithFailure(outcome.failure, now);
    }
    const newVersion = newVersionId !== null;
    recordEvent(tx, openApiSpecProcessed, {
      organizationId: spec.organizationId,
      actor: null,
      payload: {
        specId: spec.id,
        slug: spec.slug,
        sourceUrl: claim.sourceUrl,
        versionId: spec.lastVersionId ?? null,
        newVersion,
        errorCode: spec.lastProcessErrorCode ?? null,
      },
    });
    return { recorded: true, versionId: spec.lastVersionId ?? null, newVersion } as const;
  });
}

/** Hands a claimed specification back to the queue (the worker is stopping before it finished). */
export async function releaseSpec(em: EntityManager, claim: ClaimedSpec): Promise<void> {
  await specQueue.release(em, claim.specId, {
    holds: sql`processing_state = 'progress' and source_generation = ${claim.generation} and claimed_generation = ${claim.generation}`,
    set: sql`processing_state = 'pending', claimed_generation = null`,
  });
}
