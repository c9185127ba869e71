import type { MikroORM } from "@mikro-orm/postgresql";
import { forkEm, type JobSpec } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { pruneAuditEvents } from "../use-cases/audit/prune-audit-events.js";

/** Deletes audit entries older than the retention, every `intervalMs` (one replica at a time). */
export function pruneAuditEventsJob(orm: MikroORM, deps: UseCaseDeps, intervalMs: number): JobSpec {
  return {
    name: "prune-audit-events",
    intervalMs,
    run: () => pruneAuditEvents(forkEm(orm), deps),
  };
}
