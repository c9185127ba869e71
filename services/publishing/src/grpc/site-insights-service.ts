import type { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { aggregateSiteEvents } from "../use-cases/insights/aggregate-site-events.js";
import { trackSiteEvents } from "../use-cases/insights/track-site-events.js";

export const SITE_INSIGHTS_SERVICE_NAME = "imprint.publishing.v1.SiteInsightsService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteInsightsServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteInsightsServiceService> {
  return {
    trackSiteEvents: async (request) => ({
      counted: await trackSiteEvents(
        em(),
        {
          caller: request.caller,
          batchId: request.batchId,
          events: request.events.map((event) => ({
            id: event.id,
            organizationId: event.organizationId,
            siteId: event.siteId,
            type: event.type,
            siteSpaceId: event.siteSpaceId,
            spaceId: event.spaceId,
            pageId: event.pageId,
            rating: event.rating,
            occurredAt: event.occurredAt,
          })),
        },
        deps,
      ),
    }),

    aggregateSiteEvents: async (request) => {
      const groups = await aggregateSiteEvents(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          from: request.from,
          to: request.to,
          groupBy: request.groupBy,
          interval: request.interval,
          eventTypes: { values: request.eventTypes, exclude: request.excludeEventTypes },
          pageIds: { values: request.pageIds, exclude: request.excludePageIds },
          orderBy: request.orderBy,
          descending: request.descending,
          limit: request.limit,
        },
        deps,
      );
      return {
        groups: groups.map((group) => ({
          ...(group.datetime ? { datetime: group.datetime } : {}),
          eventType: group.eventType ?? "",
          siteSpaceId: group.siteSpaceId ?? "",
          spaceId: group.spaceId ?? "",
          pageId: group.pageId ?? "",
          eventsCount: String(group.eventsCount),
          good: String(group.ratings.good),
          ok: String(group.ratings.ok),
          bad: String(group.ratings.bad),
        })),
      };
    },
  };
}
