import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { IntegrationEventRecord, type TraceLine } from "../../domain/integration-event.js";

/** The job that delivers recorded integration events (jobs/deliver-events.ts). */
export const DELIVERY_JOB = "deliver-integration-events";

export interface NewDelivery {
  integrationId: string;
  installationId: string | null;
  organizationId: string | null;
  targetInstallationId: string | null;
  /** GitBook's event type (`installation_setup`, `space_content_updated`, …). */
  type: string;
  /** The GitBook Event for the new event id. */
  payload: (eventId: string) => Record<string, unknown>;
  /** What it came from (a domain event id or a report), with the installation: recorded once. */
  sourceKey: string;
  /** When it may first be sent (a scheduled task); now when not given. */
  dueAt?: Date;
}

/**
 * Records an integration event to deliver, in the caller's transaction; the delivery job sends it
 * after commit (the caller wakes it with {@link wakeDelivery}).
 */
export function recordDelivery(em: EntityManager, deps: Pick<UseCaseDeps, "clock">, delivery: NewDelivery): IntegrationEventRecord {
  const id = randomUUID();
  const now = deps.clock();
  const record = em.create(IntegrationEventRecord, {
    id,
    integrationId: delivery.integrationId,
    installationId: delivery.installationId,
    organizationId: delivery.organizationId,
    targetInstallationId: delivery.targetInstallationId,
    type: delivery.type,
    payload: delivery.payload(id),
    sourceKey: delivery.sourceKey.slice(0, 200),
    state: "pending",
    attempts: 0,
    nextAttemptAt: delivery.dueAt ?? now,
    trace: [],
    createdAt: now,
    finishedAt: null,
  } as never);
  return record;
}

/** Asks the delivery job to run now (after the transaction that recorded events committed). */
export function wakeDelivery(deps: Pick<UseCaseDeps, "jobs">): void {
  deps.jobs.wake(DELIVERY_JOB);
}

/** Log lines and a closing reason as an event's trace keeps them; a reason the lines already end with is not repeated. */
export function traceWithReason(logs: readonly { level: TraceLine["level"]; message: string; timestamp: Date }[], reason: string, at: Date): TraceLine[] {
  const lines = traceLines(logs);
  return lines.at(-1)?.message === reason ? lines : [...lines, { level: "error", message: reason, timestamp: at.toISOString() }];
}

/** Log lines as an event's trace keeps them. */
export function traceLines(logs: readonly { level: TraceLine["level"]; message: string; timestamp: Date }[]): TraceLine[] {
  return logs.map((line) => ({ level: line.level, message: line.message, timestamp: line.timestamp.toISOString() }));
}

/** Records an event that already ended (a failed render): it shows in the event log with its trace at once. */
export async function recordEndedEvent(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "clock" | "unitOfWork">,
  event: Omit<NewDelivery, "payload" | "sourceKey"> & { id: string; payload: Record<string, unknown>; state: "success" | "failed"; trace: TraceLine[] },
): Promise<void> {
  await deps.unitOfWork.run(em, async (tx) => {
    const now = deps.clock();
    tx.create(IntegrationEventRecord, {
      id: event.id,
      integrationId: event.integrationId,
      installationId: event.installationId,
      organizationId: event.organizationId,
      targetInstallationId: event.targetInstallationId,
      type: event.type,
      payload: event.payload,
      sourceKey: `ended:${event.id}`,
      state: event.state,
      attempts: 1,
      nextAttemptAt: now,
      trace: event.trace,
      createdAt: now,
      finishedAt: now,
    } as never);
  });
}
