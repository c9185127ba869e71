import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { defineRoute, noContent, ok, type Route } from "../route.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

/** The event types Imprint counts (of GitBook's SiteInsightsEventType); the others answer 400. */
const COUNTED_TYPES = ["page_view", "page_post_feedback", "page_post_feedback_comment"] as const;
const rating = z.enum(["good", "ok", "bad"]);
const nullableId = z.string().max(128).nullable();

/** GitBook's SiteInsightsEventBase: the visitor's session and where the event happened. */
const eventBase = {
  session: z.object({
    visitorId: z.string().max(256),
    sessionId: z.string().max(256),
    cookies: z.record(z.string(), z.string()),
    ip: z.string().max(64).optional(),
    userAgent: z.string().max(1024),
    language: z.string().max(64).nullable(),
    referrer: z.string().max(4096).nullable(),
    visitorAuthToken: z.string().nullable().optional(),
    visitorAuthClaims: z.record(z.string(), z.unknown()).optional(),
  }),
  location: z.object({
    url: z.string().max(4096),
    displayContext: z.enum(["site", "server", "embed", "mcp"]).optional(),
    siteSection: nullableId,
    siteSpace: nullableId,
    siteShareKey: nullableId,
    space: nullableId,
    revision: nullableId,
    page: nullableId,
  }),
  timestamp: z.iso.datetime({ offset: true }).optional(),
};

export const trackSiteEventsBody = z.object({
  events: z
    .array(
      z.discriminatedUnion("type", [
        z.object({ type: z.literal("page_view"), ...eventBase }),
        z.object({ type: z.literal("page_post_feedback"), feedback: z.object({ rating }), ...eventBase }),
        z.object({ type: z.literal("page_post_feedback_comment"), feedback: z.object({ rating, comment: z.string().min(1).max(512) }), ...eventBase }),
      ]),
    )
    .max(1000),
});

/** The columns Imprint answers (of GitBook's SiteInsightsQueryEventsColumn); the others answer 400. */
const groupColumn = z.discriminatedUnion("column", [
  z.object({ column: z.literal("datetime"), interval: z.enum(["day", "week", "month"]).optional() }),
  z.object({ column: z.literal("eventType") }),
  z.object({ column: z.literal("siteSpace") }),
  z.object({ column: z.literal("page") }),
]);
const selectColumn = z.discriminatedUnion("column", [
  ...groupColumn.options,
  z.object({ column: z.literal("eventsCount") }),
  z.object({ column: z.literal("pageFeedbackRating") }),
]);
const operator = z.enum(["in", "notIn"]).optional();
const filter = z.discriminatedUnion("column", [
  z.object({ column: z.literal("eventType"), values: z.array(z.enum(COUNTED_TYPES)).max(100), operator }),
  z.object({ column: z.literal("page"), values: z.array(z.object({ page: z.string().max(128).nullable(), space: z.string().max(128) })).max(1000), operator }),
]);
const RANGE_PRESETS = { lastYear: 365, last3Months: 90, last30Days: 30, last7Days: 7, last24Hours: 1 } as const;

export const aggregateSiteEventsBody = z.object({
  select: z.array(selectColumn).max(10).optional(),
  where: z.array(filter).max(10).optional(),
  groupBy: z.array(groupColumn).max(4).optional(),
  order: z.object({ by: selectColumn, direction: z.enum(["asc", "desc"]) }).optional(),
  range: z.union([
    z.enum(Object.keys(RANGE_PRESETS) as [keyof typeof RANGE_PRESETS]),
    z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }),
  ]),
  limit: z.number().int().min(1).max(1000).optional(),
});

type TrackedEvent = z.output<typeof trackSiteEventsBody>["events"][number];

/**
 * An event's id: derived from what it says when it carries its time (the same event posted again is
 * counted once), else new.
 */
function eventId(organizationId: string, siteId: string, event: TrackedEvent): string {
  if (!event.timestamp) return randomUUID();
  const hex = createHash("sha256")
    .update(
      JSON.stringify([
        organizationId,
        siteId,
        event.type,
        event.session.sessionId,
        event.timestamp,
        event.location.page,
        "feedback" in event ? event.feedback : null,
      ]),
    )
    .digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function siteInsightsRoutes({ upstreams }: RouteDeps): Route[] {
  const insights = upstreams.publishing.siteInsights;
  const insightsPath = "/v1/orgs/:organizationId/sites/:siteId/insights/events";
  return [
    // trackEventsInSiteById: page views and page feedback (Imprint counts those; other types answer 400).
    defineRoute({
      method: "POST",
      path: insightsPath,
      params: siteParams,
      body: trackSiteEventsBody,
      handler: async ({ params, body, principal }) => {
        await insights.trackSiteEvents({
          caller: principal.caller,
          batchId: "",
          events: body.events.map((event) => ({
            id: eventId(params.organizationId, params.siteId, event),
            organizationId: params.organizationId,
            siteId: params.siteId,
            type: event.type,
            siteSpaceId: event.location.siteSpace ?? "",
            spaceId: event.location.space ?? "",
            pageId: event.location.page ?? "",
            rating: "feedback" in event ? event.feedback.rating : "",
            ...(event.timestamp ? { occurredAt: new Date(event.timestamp) } : {}),
          })),
        });
        return noContent();
      },
    }),

    // aggregateSiteEvents: counts grouped by datetime, eventType, siteSpace and page; eventsCount and
    // pageFeedbackRating per group.
    defineRoute({
      method: "POST",
      path: `${insightsPath}/aggregate`,
      params: siteParams,
      body: aggregateSiteEventsBody,
      handler: async ({ params, body, principal }) => {
        const groupBy = body.groupBy ?? [];
        const select = body.select ?? [...groupBy, { column: "eventsCount" as const }];
        const interval = groupBy.find((column) => column.column === "datetime")?.interval ?? "";
        const to = typeof body.range === "string" ? new Date() : new Date(body.range.to);
        const from = typeof body.range === "string" ? new Date(to.getTime() - RANGE_PRESETS[body.range] * 86_400_000) : new Date(body.range.from);
        const eventTypes = body.where?.find((where) => where.column === "eventType");
        const pages = body.where?.find((where) => where.column === "page");
        const response = await insights.aggregateSiteEvents({
          caller: principal.caller,
          ...params,
          from,
          to,
          groupBy: [...new Set([...groupBy, ...select].map((column) => column.column))].filter(
            (column) => column !== "eventsCount" && column !== "pageFeedbackRating",
          ),
          interval,
          eventTypes: eventTypes?.values ?? [],
          excludeEventTypes: eventTypes?.operator === "notIn",
          pageIds: pages?.values.map((page) => page.page ?? "") ?? [],
          excludePageIds: pages?.operator === "notIn",
          orderBy: body.order?.by.column ?? "",
          descending: body.order?.direction === "desc",
          limit: body.limit ?? 0,
        });
        const { groups } = response;
        return ok({
          columns: select.map(({ column }) => {
            switch (column) {
              case "datetime":
                return { column, values: groups.map((group) => group.datetime!.toISOString()) };
              case "eventType":
                return { column, values: groups.map((group) => group.eventType) };
              case "siteSpace":
                return { column, values: groups.map((group) => group.siteSpaceId || null) };
              case "page":
                return { column, values: groups.map((group) => (group.spaceId ? { page: group.pageId || null, space: group.spaceId } : null)) };
              case "eventsCount":
                return { column, values: groups.map((group) => Number(group.eventsCount)) };
              case "pageFeedbackRating":
                return { column, values: groups.map((group) => ({ good: Number(group.good), ok: Number(group.ok), bad: Number(group.bad) })) };
            }
          }),
        });
      },
    }),
  ];
}
