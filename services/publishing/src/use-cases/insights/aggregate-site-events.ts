import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql, toDate, type RawBuilder } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { startOfDay, GROUP_COLUMNS, INTERVALS, MAX_GROUPS, type GroupColumn, type Interval } from "../../domain/site-insights.js";
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
  ratings: ValuesFilter;
  /** A group_by column or eventsCount; "" for the groups' own order. */
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
  pageId?: string;
  rating?: string;
  eventsCount: number;
}

/** Each column grouped by, as the counts' SQL expression (a fixed list: nothing of the request is written into the SQL). */
const EXPRESSIONS: Record<GroupColumn, string> = {
  datetime: "day",
  eventType: "event_type",
  siteSpace: "site_space_id",
  page: "page_id",
  pageFeedbackRating: "rating",
};
/** Levels that read a site's insights (GitBook's site:insights:read: its editors and admins). */
const READERS = new Set(["admin", "create", "review", "edit"]);

/** Counts a site's events over a range, grouped and filtered (the site's editors and admins). */
export async function aggregateSiteEvents(em: EntityManager, input: AggregateSiteEventsInput, deps: UseCaseDeps): Promise<SiteEventsGroup[]> {
  const columns = input.groupBy.map((column) => {
    if (!(GROUP_COLUMNS as readonly string[]).includes(column)) throw AppError.invalidArgument(`groupBy: must be among ${GROUP_COLUMNS.join(", ")}`);
    return column as GroupColumn;
  });
  const interval = (input.interval || "day") as Interval;
  if (!INTERVALS.includes(interval)) throw AppError.invalidArgument(`interval: must be one of ${INTERVALS.join(", ")}`);
  if (input.orderBy && input.orderBy !== "eventsCount" && !columns.includes(input.orderBy as GroupColumn))
    throw AppError.invalidArgument("order.by: must be eventsCount or a column grouped by");
  const limit = input.limit || MAX_GROUPS;
  if (limit < 1 || limit > MAX_GROUPS) throw AppError.invalidArgument(`limit: must be between 1 and ${MAX_GROUPS}`);
  if (!input.from || !input.to) throw AppError.invalidArgument("range: from and to are required");
  if (input.from > input.to) throw AppError.invalidArgument("range: from must not be after to");

  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member", "read the site's insights");
  const site = await findSite(em, access, input.siteId);
  const { level } = await requireSiteLevel(em, access, site.id);
  if (!level || !READERS.has(level)) throw AppError.permissionDenied("Only the site's editors and admins can read its insights");

  const selected = columns.map((column) =>
    column === "datetime" && interval !== "day" ? sql.raw(`date_trunc('${interval}', day, 'UTC') as datetime`) : sql.raw(`${EXPRESSIONS[column]} as "${column}"`),
  );
  const filter = (expression: string, type: string, filter: ValuesFilter): RawBuilder<unknown> =>
    filter.values.length === 0
      ? sql`true`
      : sql`(${sql.raw(expression)} = any(${filter.values}::${sql.raw(type)}[])) = ${!filter.exclude}`;
  const order = input.orderBy
    ? sql.raw(`"${input.orderBy === "eventsCount" ? "eventsCount" : input.orderBy}" ${input.descending ? "desc" : "asc"}`)
    : columns.length > 0
      ? sql.raw(columns.map((column) => `"${column}"`).join(", "))
      : sql.raw(`"eventsCount"`);
  const rows = await queryRows(
    em,
    sql<Record<string, unknown>>`select ${sql.join([...selected, sql.raw(`sum(count)::bigint as "eventsCount"`)])}
      from site_insight_counts
     where site_id = ${site.id} and day >= ${startOfDay(input.from)} and day < ${input.to}
       and ${filter("event_type", "text", input.eventTypes)} and ${filter("page_id", "text", input.pageIds)} and ${filter("rating", "text", input.ratings)}
     ${columns.length > 0 ? sql.raw(`group by ${columns.map((column) => `"${column}"`).join(", ")}`) : sql``}
     order by ${order}
     limit ${limit}`,
  );
  return rows.map((row) => ({
    ...(columns.includes("datetime") ? { datetime: toDate(row.datetime as string | Date) } : {}),
    ...(columns.includes("eventType") ? { eventType: String(row.eventType) } : {}),
    ...(columns.includes("siteSpace") ? { siteSpaceId: String(row.siteSpace) } : {}),
    ...(columns.includes("page") ? { pageId: String(row.page) } : {}),
    ...(columns.includes("pageFeedbackRating") ? { rating: String(row.pageFeedbackRating) } : {}),
    eventsCount: Number(row.eventsCount),
  }));
}

