import { type EntityManager } from "@mikro-orm/postgresql";
import type { Clock, UnitOfWork } from "@imprint/runtime";
import { executeStatement, findOwnedOrNull, queryRows, sql } from "@imprint/runtime";
import { OpenApiSpec, OpenApiSpecVersion } from "../domain/entities.js";
import { openApiSpecProcessed, recordContentEvent } from "../../events.js";
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
 * Takes the oldest waiting specification, or one whose worker's lease ran out (a crashed or
 * stopped process), and marks it `progress`. SKIP LOCKED lets several workers and replicas claim
 * side by side without waiting on each other.
 */
export async function claimNextSpec(em: EntityManager, deps: { clock: Clock }, leaseMs: number): Promise<ClaimedSpec | null> {
  const now = deps.clock();
  const rows = await queryRows(em, sql<{ id: string; organization_id: string; slug: string; source_url: string; source_generation: number }>`update openapi_specs
        set processing_state = 'progress', claimed_generation = source_generation, lease_expires_at = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now}
      where id = (
        select id from openapi_specs
         where processing_state = 'pending' or (processing_state = 'progress' and lease_expires_at < ${now})
         order by updated_at, id
         limit 1
         for update skip locked)
      returning id, organization_id, slug, source_url, source_generation`);
  const row = rows[0];
  if (!row) return null;
  return { specId: row.id, organizationId: row.organization_id, slug: row.slug, sourceUrl: row.source_url, generation: row.source_generation };
}

export type FinishResult =
  | { recorded: true; versionId: string | null; newVersion: boolean }
  | { recorded: false; reason: "deleted" | "superseded" };

/**
 * Records the outcome of processing `claim`, unless the specification was deleted or re-sourced
 * meanwhile (then the newer generation is already queued and this result is stale). A document
 * whose bytes hash like the latest version's keeps that version.
 */
export async function finishSpec(em: EntityManager, deps: { clock: Clock; unitOfWork: UnitOfWork }, claim: ClaimedSpec, outcome: ProcessingOutcome): Promise<FinishResult> {
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
    recordContentEvent(tx, deps, openApiSpecProcessed, {
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
  await executeStatement(em, sql`update openapi_specs set processing_state = 'pending', claimed_generation = null, lease_expires_at = null
      where id = ${claim.specId} and processing_state = 'progress' and source_generation = ${claim.generation} and claimed_generation = ${claim.generation}`);
}
