import type { EntityManager } from "@mikro-orm/postgresql";
import { auditEventId, auditRetentionCutoff, SYSTEM_ACTOR, type AuditAction, type AuditActorType, type AuditSource } from "../../domain/audit-event.js";
import { findActorUser, insertAuditEvent, knownTargetLabel } from "../../store/audit-events.js";
import type { UseCaseDeps } from "../../deps.js";

/** What one domain event changed in one organization, in the audit log's terms (docs/audit.md). */
export interface AuditedChange {
  organizationId: string;
  action: AuditAction;
  /** GitBook's object name and the resource's id; its label when the event carries one. */
  target: { type: string; id: string; label?: string | null };
}

/** A domain event as the audit log reads it, with the changes it maps to. */
export interface AuditedEvent {
  id: string;
  type: string;
  occurredAt: Date;
  /** The envelope's organization (an entry there takes the event's own id). */
  organizationId: string | null;
  actor: { userId: string } | null;
  payload: Record<string, unknown>;
  changes: readonly AuditedChange[];
}

/** Who made the change: a user, an installation acting through its principal, or nobody (the system). */
async function resolveActor(
  em: EntityManager,
  actor: AuditedEvent["actor"],
): Promise<{ actor: { type: AuditActorType; id: string; label: string | null }; source: AuditSource }> {
  if (!actor) return { actor: { ...SYSTEM_ACTOR }, source: "workflow" };
  const user = await findActorUser(em, actor.userId);
  if (user?.installationId) return { actor: { type: "installation", id: user.installationId, label: user.displayName }, source: "integration" };
  return { actor: { type: "user", id: actor.userId, label: user?.displayName ?? null }, source: "api" };
}

/**
 * Records what a domain event changed, one entry per organization it concerns, in the consumer's
 * transaction. A set of immutable facts keyed by the event's id: a replay, a duplicate or a late
 * event adds nothing twice and the log reads the same in any arrival order (ordered by when each
 * change occurred), but for the actor's and target's labels, which are those known when each entry
 * is recorded (GitBook's "captured when the event was recorded"). An event
 * older than the retention is not recorded (the retention job would delete it). Answers how many
 * entries were written.
 */
export async function recordAuditEvents(em: EntityManager, event: AuditedEvent, deps: Pick<UseCaseDeps, "clock" | "auditRetentionDays">): Promise<number> {
  if (event.changes.length === 0) return 0;
  const now = deps.clock();
  if (event.occurredAt < auditRetentionCutoff(now, deps.auditRetentionDays)) return 0;
  const { actor, source } = await resolveActor(em, event.actor);
  let written = 0;
  for (const change of event.changes) {
    const label = change.target.label || (await knownTargetLabel(em, change.organizationId, change.target));
    const inserted = await insertAuditEvent(em, {
      id: auditEventId(event.id, change.organizationId, event.organizationId),
      organizationId: change.organizationId,
      occurredAt: event.occurredAt,
      action: change.action,
      actor,
      source,
      target: { type: change.target.type, id: change.target.id, label: label ? label.slice(0, 255) : null },
      eventType: event.type,
      payload: event.payload,
      recordedAt: now,
    });
    if (inserted) written += 1;
  }
  return written;
}
