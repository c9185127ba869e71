import { randomUUID } from "node:crypto";
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { IntegrationEventRecord } from "../../domain/integration-event.js";
import { Integration } from "../../domain/integration.js";
import { taskEvent } from "../../domain/platform/events.js";
import { TASKS_WAITING_MAX, validateTask } from "../../domain/task.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { findVisibleIntegration } from "../shared/integrations.js";

export interface QueueIntegrationTaskInput {
  caller: CallerInput | undefined;
  name: string;
  /** The task's payload as JSON text (validateTask). */
  taskJson: string;
  scheduleSeconds: number;
}

/**
 * An integration queues a task for itself (GitBook's queueIntegrationTask): a `task` event with no
 * installation, recorded now and delivered by the delivery job once due, retried and logged as
 * every integration event is (at least once). Only the integration's own principal may queue
 * one: the caller must be the user its integration token acts as (identity's principal of the
 * integration, the one its scripts' `apiTokens.integration` carries). Answers the event's id.
 */
export async function queueIntegrationTask(em: EntityManager, input: QueueIntegrationTaskInput, deps: UseCaseDeps): Promise<string> {
  const caller = requireCaller(input.caller);
  const queued = validateTask(input.taskJson, input.scheduleSeconds, deps.clock());
  const { integration } = await findVisibleIntegration(em, deps, caller, input.name);
  const principal = await deps.tokens.tokenFor({ id: integration.id, organizationId: integration.ownerOrganizationId, integration });
  if (principal.userId !== caller.userId) throw AppError.permissionDenied(`Only ${integration.name} itself (its integration token) can queue its tasks`);
  const eventId = await deps.unitOfWork.run(em, async (tx) => {
    // The integration's row is locked so that concurrent calls count the waiting tasks one after another.
    await tx.findOneOrFail(Integration, { id: integration.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const waiting = await tx.count(IntegrationEventRecord, { integrationId: integration.id, type: "task", state: "pending" });
    if (waiting >= TASKS_WAITING_MAX)
      throw new AppError("rate_limited", `${integration.name} already has ${TASKS_WAITING_MAX} tasks waiting; queue more once some ran`);
    const record = recordDelivery(tx, deps, {
      integrationId: integration.id,
      installationId: null,
      organizationId: integration.ownerOrganizationId,
      targetInstallationId: null,
      type: "task",
      payload: (id) => taskEvent({ eventId: id, task: queued.task }),
      sourceKey: `task:${randomUUID()}`,
      dueAt: queued.dueAt,
    });
    return record.id;
  });
  wakeDelivery(deps);
  return eventId;
}
