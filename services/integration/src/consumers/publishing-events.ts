import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import { siteDeleted } from "@imprint/proto/publishing/v1/event-contracts";
import type { IntegrationConfig } from "../config.js";
import type { UseCaseDeps } from "../deps.js";
import { removeTarget } from "../use-cases/target-installations/remove-target.js";
import { wakeDelivery } from "../use-cases/shared/deliveries.js";

/** Publishing's events this service follows. */
export const consumedPublishingEvents = [siteDeleted] as const;

/**
 * A deleted site takes its installations with it (each integration hears `site_installation_deleted`).
 * Order-free: a site is deleted once and for good, and the removal is idempotent (one delivery per
 * source event and installation).
 */
export function publishingEventConsumers(deps: UseCaseDeps, config: IntegrationConfig): ConsumerSpec[] {
  return [
    {
      context: "publishing",
      consumer: config.SITE_EVENTS_CONSUMER,
      filterSubject: "imprint.publishing.v1.site.deleted",
      keyOf: keyByAggregate(consumedPublishingEvents),
      afterCommit: () => wakeDelivery(deps),
      handler: handleEvents(consumedPublishingEvents, async (event, { em }) => {
        if (!isId(event.payload.siteId)) return;
        await removeTarget(em, { sourceEventId: event.id, kind: "site", targetId: event.payload.siteId }, deps);
      }),
    },
  ];
}
