import type { IntegrationEventServiceService } from "@imprint/proto/integration/v1/integration_events";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getIntegrationEvent } from "../use-cases/integration-events/get-integration-event.js";
import { listIntegrationEvents } from "../use-cases/integration-events/list-integration-events.js";
import { queueIntegrationTask } from "../use-cases/integration-events/queue-integration-task.js";
import { integrationEventToProto } from "./mappers.js";

export const INTEGRATION_EVENT_SERVICE_NAME = "imprint.integration.v1.IntegrationEventService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function integrationEventServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof IntegrationEventServiceService> {
  return {
    listIntegrationEvents: async (request) => {
      const page = await listIntegrationEvents(em(), { caller: request.caller, name: request.name, page: pageRequest(request.page) }, deps);
      return { events: page.items.map(integrationEventToProto), page: pageInfo(page) };
    },

    getIntegrationEvent: async (request) => {
      const event = await getIntegrationEvent(em(), { caller: request.caller, name: request.name, eventId: request.eventId }, deps);
      return {
        event: integrationEventToProto(event),
        logs: event.trace.map((line) => ({ message: line.message, timestamp: new Date(line.timestamp), level: line.level })),
      };
    },

    queueIntegrationTask: async (request) => ({
      eventId: await queueIntegrationTask(
        em(),
        { caller: request.caller, name: request.name, taskJson: request.taskJson, scheduleSeconds: request.scheduleSeconds },
        deps,
      ),
    }),
  };
}
