import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql, toDate, type RawBuilder } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { startOfDay, FEEDBACK_RATINGS, GROUP_COLUMNS, INTERVALS, MAX_GROUPS, type GroupColumn, type Interval } from "../../domain/site-insights.js";
import { type CallerInput, requireSiteCaller, requireSiteLevel } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

/** A filter on a column: only these values, or all but them. */
export interface ValuesFilter {
  values: string[];
  exclude: boolean;
}

export interface AggregateSiteEventsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  from: Date | undefined;
  to: Date | undefined;
  groupBy: string[];
  /** The datetime column's interval; "" for day. */
  interval: string;
  eventTypes: ValuesFilter;
  pageIds: ValuesFilter;
  /** A group_by column, eventsCount or pageFeedbackRating (by good ratings); "" for the groups' own order. */
  orderBy: string;
  descending: boolean;
  /** 0 for the most. */
  limit: number;
}

/** One group of counted events: the columns grouped by, and how many events it holds. */
export interface SiteEventsGroup {
  datetime?: Date;
  eventType?: string;
  siteSpaceId?: string;
  /** With pageId: the page's space. */
  spaceId?: string;
  pageId?: string;
  eventsCount: number;
  /** Feedback events by rating. */
  ratings: { good: number; ok: number; bad: number };
}

/** A group as the query answers it: the columns grouped by (absent when not), the counts as bigint text. */
interface GroupRow {
  datetime?: Date | string;
  eventType?: string;
  siteSpace?: string;
  page?: string;
  space?: string | null;
  eventsCount: string;
  good: string | null;
  ok: string | null;
  bad: string | null;
}

/** Each column grouped by, as the counts' SQL expression (a fixed list: nothing of the request is written into the SQL). */
const EXPRESSIONS: Record<GroupColumn, string> = {
  datetime: "day",
  eventType: "event_type",
  siteSpace: "site_space_id",
  page: "page_id",
};
/** What groups may be ordered by besides their columns: their counts. */
const ORDERS: Record<string, string> = { eventsCount: "eventsCount", pageFeedbackRating: "good" };
/** Levels that read a site's insights (GitBook's site:insights:read: its editors and admins). */
const READERS = new Set(["admin", "create", "review", "edit"]);

/** Counts a site's events over a range, grouped and filtered, each group with its feedback's ratings (the site's editors and admins). */
export async function aggregateSiteEvents(em: EntityManager, input: AggregateSiteEventsInput, deps: UseCaseDeps): Promise<SiteEventsGroup[]> {
  const columns = input.groupBy.map((column) => {
    if (!(GROUP_COLUMNS as readonly string[]).includes(column)) throw AppError.invalidArgument(`groupBy: must be among ${GROUP_COLUMNS.join(", ")}`);
    return column as GroupColumn;
  });
  const interval = (input.interval || "day") as Interval;
  if (!INTERVALS.includes(interval)) throw AppError.invalidArgument(`interval: must be one of ${INTERVALS.join(", ")}`);
  if (input.orderBy && !ORDERS[input.orderBy] && !columns.includes(input.orderBy as GroupColumn))
    throw AppError.invalidArgument("order.by: must be eventsCount, pageFeedbackRating or a column grouped by");
  const limit = input.limit || MAX_GROUPS;
  if (limit < 1 || limit > MAX_GROUPS) throw AppError.invalidArgument(`limit: must be between 1 and ${MAX_GROUPS}`);
  if (!input.from || !input.to) throw AppError.invalidArgument("range: from and to are required");
  if (input.from > input.to) throw AppError.invalidArgument("range: from must not be after to");

  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member", "read the site's insights");
  const site = await findSite(em, access, input.siteId);
  const { level } = await requireSiteLevel(em, access, site.id);
  if (!level || !READERS.has(level)) throw AppError.permissionDenied("Only the site's editors and admins can read its insights");

  const selected = columns.map((column) =>
    column === "datetime" && interval !== "day"
      ? sql.raw(`date_trunc('${interval}', day, 'UTC') as datetime`)
      : sql.raw(`${EXPRESSIONS[column]} as "${column}"`),
  );
  const filter = (expression: string, type: string, filter: ValuesFilter): RawBuilder<unknown> =>
    filter.values.length === 0 ? sql`true` : sql`(${sql.raw(expression)} = any(${filter.values}::${sql.raw(type)}[])) = ${!filter.exclude}`;
  const order = input.orderBy
    ? sql.raw(`"${ORDERS[input.orderBy] ?? input.orderBy}" ${input.descending ? "desc" : "asc"}`)
    : columns.length > 0
      ? sql.raw(columns.map((column) => `"${column}"`).join(", "))
      : sql.raw(`"eventsCount"`);
  const rows = await queryRows(
    em,
    sql<GroupRow>`select ${sql.join([
      ...selected,
      ...(columns.includes("page") ? [sql.raw(`max(space_id) as "space"`)] : []),
      sql.raw(`sum(count)::bigint as "eventsCount"`),
      ...FEEDBACK_RATINGS.map((rating) => sql.raw(`(sum(count) filter (where rating = '${rating}'))::bigint as "${rating}"`)),
    ])}
      from site_insight_counts
     where site_id = ${site.id} and day >= ${startOfDay(input.from)} and day < ${input.to}
       and ${filter("event_type", "text", input.eventTypes)} and ${filter("page_id", "text", input.pageIds)}
     ${columns.length > 0 ? sql.raw(`group by ${columns.map((column) => `"${column}"`).join(", ")}`) : sql``}
     order by ${order}
     limit ${limit}`,
  );
  return rows.map((row) => ({
    ...(row.datetime !== undefined ? { datetime: toDate(row.datetime) } : {}),
    ...(row.eventType !== undefined ? { eventType: row.eventType } : {}),
    ...(row.siteSpace !== undefined ? { siteSpaceId: row.siteSpace } : {}),
    ...(row.page !== undefined ? { pageId: row.page, spaceId: row.space ?? "" } : {}),
    eventsCount: Number(row.eventsCount),
    ratings: { good: Number(row.good ?? 0), ok: Number(row.ok ?? 0), bad: Number(row.bad ?? 0) },
  }));
}
