import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { IntegrationEventRecord } from "../../domain/integration-event.js";
import { findOwnedIntegration } from "../shared/integrations.js";

/** One event of an integration with the log lines of its handling, once its delivery ended. */
export async function getIntegrationEvent(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; eventId: string },
  deps: UseCaseDeps,
): Promise<IntegrationEventRecord> {
  const integration = await findOwnedIntegration(em, deps, requireCaller(input.caller), input.name, "read its events");
  const event = isId(input.eventId)
    ? await em.findOne(IntegrationEventRecord, { id: input.eventId, integrationId: integration.id, state: { $in: ["success", "failed"] } })
    : null;
  if (!event) throw AppError.notFound("Integration event");
  return event;
}
