import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, isId, queryRows, sql } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { startOfDay, checkTrackedEvent, MAX_TRACKED_EVENTS, RECEIPT_DAYS, type TrackedEvent } from "../../domain/site-insights.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface TrackSiteEventsInput {
  /** Absent for the reader's own reports (trusted, any site); present, the caller must see each site. */
  caller: CallerInput | undefined;
  /** A batch counted as one ("" for none): remembered instead of each event, whose ids may then be empty. */
  batchId: string;
  events: {
    id: string;
    organizationId: string;
    siteId: string;
    type: string;
    siteSpaceId: string;
    spaceId: string;
    pageId: string;
    rating: string;
    occurredAt: Date | undefined;
  }[];
}

/**
 * Counts events of sites' visitors: each id (or the batch's, for a batch counted as one) is
 * remembered, and only events whose id was not yet remembered are added to the counts (a retried
 * batch counts nothing twice). Ids older than {@link RECEIPT_DAYS} days are forgotten on the way.
 */
export async function trackSiteEvents(em: EntityManager, input: TrackSiteEventsInput, deps: UseCaseDeps): Promise<number> {
  if (input.events.length > MAX_TRACKED_EVENTS) throw AppError.invalidArgument(`events: at most ${MAX_TRACKED_EVENTS} at once`);
  const now = deps.clock();
  const batched = input.batchId !== "";
  if (batched && !isId(input.batchId)) throw AppError.invalidArgument("batchId: must be a UUID");
  const events: TrackedEvent[] = input.events.map((event, index) => {
    if (!(batched && event.id === "") && !isId(event.id)) throw AppError.invalidArgument(`events[${index}].id: must be a UUID`);
    if (!isId(event.organizationId) || !isId(event.siteId)) throw AppError.notFound("Site");
    return {
      id: event.id,
      organizationId: event.organizationId,
      siteId: event.siteId,
      siteSpaceId: event.siteSpaceId.slice(0, 64),
      spaceId: event.spaceId.slice(0, 64),
      pageId: event.pageId.slice(0, 64),
      ...checkTrackedEvent(event, index, now),
    };
  });
  if (input.caller) {
    const sites = new Map(events.map((event) => [`${event.organizationId}/${event.siteId}`, event]));
    for (const event of sites.values()) {
      const access = await requireSiteCaller(deps, input.caller, event.organizationId, "member");
      await findSite(em, access, event.siteId);
    }
  }
  if (events.length === 0) return 0;
  return deps.unitOfWork.run(em, async (tx) => {
    await executeStatement(tx, sql`delete from site_insight_receipts where received_at < ${new Date(now.getTime() - RECEIPT_DAYS * 86_400_000)}`);
    // One receipt per batch, or per event: what is remembered is what a repeat would send again.
    const receiptIds = batched ? [input.batchId] : events.map((event) => event.id);
    const fresh = await queryRows(
      tx,
      sql<{ event_id: string }>`insert into site_insight_receipts (event_id, received_at)
        select distinct unnest(${`{${receiptIds.join(",")}}`}::uuid[]), ${now}::timestamptz
        on conflict (event_id) do nothing returning event_id`,
    );
    const freshIds = new Set(fresh.map((row) => row.event_id));
    const counted = batched ? (freshIds.size > 0 ? events : []) : events.filter((event) => freshIds.delete(event.id));
    if (counted.length === 0) return 0;
    const rows = counted.map((event) => ({
      organization_id: event.organizationId,
      site_id: event.siteId,
      day: startOfDay(event.occurredAt).toISOString(),
      event_type: event.type,
      site_space_id: event.siteSpaceId,
      space_id: event.spaceId,
      page_id: event.pageId,
      rating: event.rating,
    }));
    await executeStatement(
      tx,
      sql`insert into site_insight_counts (site_id, day, event_type, site_space_id, page_id, rating, organization_id, space_id, count)
          select site_id, day, event_type, site_space_id, page_id, rating, organization_id, max(space_id), count(*)
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
              as e(organization_id uuid, site_id uuid, day timestamptz, event_type text, site_space_id text, space_id text, page_id text, rating text)
           group by site_id, day, event_type, site_space_id, page_id, rating, organization_id
          on conflict (site_id, day, event_type, site_space_id, page_id, rating) do update set count = site_insight_counts.count + excluded.count`,
    );
    return counted.length;
  });
}
