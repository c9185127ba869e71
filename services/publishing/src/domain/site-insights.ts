import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/** The event types a site's insights count (GitBook's SiteInsightsEventType, those the reader produces). */
export const COUNTED_EVENT_TYPES = ["page_view", "page_post_feedback", "page_post_feedback_comment"] as const;
export type CountedEventType = (typeof COUNTED_EVENT_TYPES)[number];
/** GitBook's PageFeedbackRating. */
export const FEEDBACK_RATINGS = ["good", "ok", "bad"] as const;
/** Events one call tracks at most. */
export const MAX_TRACKED_EVENTS = 1000;
/** How long an event's id is remembered, so that a retried batch counts nothing twice (GitBook takes events at most 5 minutes old). */
export const RECEIPT_DAYS = 2;
/** How far from now an event's time may be (GitBook's rule: within 5 minutes). */
export const EVENT_CLOCK_SKEW_MS = 5 * 60_000;

/** The columns counts are grouped by (GitBook's SiteInsightsQueryEventsColumn names). */
export const GROUP_COLUMNS = ["datetime", "eventType", "siteSpace", "page"] as const;
export type GroupColumn = (typeof GROUP_COLUMNS)[number];
export const INTERVALS = ["day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];
export const MAX_GROUPS = 1000;

/** The start of a time's UTC day (what counts are kept per). */
export function startOfDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

/** One event to count, checked. */
export interface TrackedEvent {
  id: string;
  organizationId: string;
  siteId: string;
  type: CountedEventType;
  siteSpaceId: string;
  spaceId: string;
  pageId: string;
  rating: string;
  occurredAt: Date;
}

const isCountedType = (type: string): type is CountedEventType => (COUNTED_EVENT_TYPES as readonly string[]).includes(type);

/** An event's type, rating and time as the counts take them; `index` names it in the refusal. */
export function checkTrackedEvent(
  event: { type: string; rating: string; occurredAt: Date | undefined },
  index: number,
  now: Date,
): { type: CountedEventType; rating: string; occurredAt: Date } {
  if (!isCountedType(event.type)) throw AppError.invalidArgument(`events[${index}].type: must be one of ${COUNTED_EVENT_TYPES.join(", ")}`);
  const feedback = event.type !== "page_view";
  if (feedback && !(FEEDBACK_RATINGS as readonly string[]).includes(event.rating))
    throw AppError.invalidArgument(`events[${index}].feedback.rating: must be one of ${FEEDBACK_RATINGS.join(", ")}`);
  const occurredAt = event.occurredAt ?? now;
  if (Math.abs(occurredAt.getTime() - now.getTime()) > EVENT_CLOCK_SKEW_MS)
    throw AppError.invalidArgument(`events[${index}].timestamp: must be within 5 minutes of the current time`);
  return { type: event.type, rating: feedback ? event.rating : "", occurredAt };
}

/**
 * Events of a site's visitors counted per UTC day, event type, site-space, page and rating ("" for
 * none): nothing about the visitor is kept.
 */
export const SiteInsightCountSchema = defineEntity({
  name: "SiteInsightCount",
  tableName: "site_insight_counts",
  properties: {
    siteId: p.uuid().primary(),
    day: p.datetime().primary(),
    eventType: p.string().length(32).primary(),
    siteSpaceId: p.string().length(64).primary(),
    pageId: p.string().length(64).primary(),
    rating: p.string().length(8).primary(),
    organizationId: p.uuid(),
    /** The page's space ("" for none): what GitBook's `page` column names with the page. */
    spaceId: p.string().length(64),
    count: p.bigint("number"),
  },
});
export class SiteInsightCount extends SiteInsightCountSchema.class {}
SiteInsightCountSchema.setClass(SiteInsightCount);

/** The ids of events counted lately: an event is counted once per id (forgotten after {@link RECEIPT_DAYS}). */
export const SiteInsightReceiptSchema = defineEntity({
  name: "SiteInsightReceipt",
  tableName: "site_insight_receipts",
  properties: {
    eventId: p.uuid().primary(),
    receivedAt: p.datetime(),
  },
  indexes: [{ properties: ["receivedAt"], name: "site_insight_receipts_received_at_index" }],
});
export class SiteInsightReceipt extends SiteInsightReceiptSchema.class {}
SiteInsightReceiptSchema.setClass(SiteInsightReceipt);
