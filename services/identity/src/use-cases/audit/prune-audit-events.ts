import type { EntityManager } from "@mikro-orm/postgresql";
import { auditRetentionCutoff } from "../../domain/audit-event.js";
import { deleteAuditEventsBefore } from "../../store/audit-events.js";
import type { UseCaseDeps } from "../../deps.js";

/** Entries deleted per statement, so one run never holds a long lock on `audit_events`. */
const PRUNE_BATCH = 1000;

/**
 * Deletes audit entries that occurred more than the retention (AUDIT_RETENTION_DAYS) ago. Answers
 * true when a full batch went, so the job runs again at once.
 */
export async function pruneAuditEvents(em: EntityManager, deps: Pick<UseCaseDeps, "clock" | "auditRetentionDays">): Promise<boolean> {
  const deleted = await deleteAuditEventsBefore(em, auditRetentionCutoff(deps.clock(), deps.auditRetentionDays), PRUNE_BATCH);
  return deleted === PRUNE_BATCH;
}
