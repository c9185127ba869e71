import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { isbot } from "isbot";
import type { ParameterizedContext } from "koa";
import type { ScriptServiceService, SiteView } from "@imprint/proto/integration/v1/scripts";
import type { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import type { Logger, PromiseClient } from "@imprint/runtime/core";
import type { PageVisit } from "./pages.js";
import { throttledWarning } from "./throttled-warning.js";
import type { ViewedPage, ViewedRequest, ViewRecorder } from "./viewed.js";
import type { Visit } from "./visit.js";

/** Views per ReportSiteViews and TrackSiteEvents call (the services take up to 1000). */
const BATCH = 500;
/** The longest a view waits before it is sent, when fewer than a batch are waiting. */
const FLUSH_INTERVAL_MS = 1_000;
/** Views kept while the integration service is slow or down; beyond, the oldest are dropped. */
const MAX_WAITING = 10_000;
/** What a view keeps of a request at most (the integration service ignores views of longer URLs). */
const MAX_URL = 4096;
const MAX_REFERRER = 2048;
const MAX_USER_AGENT = 512;
const MAX_LANGUAGE = 35;
/** Visitors whose anonymous id is kept, so that each of their views does not derive it again. */
const RECENT_VISITORS = 4096;

/** The page a visit reached, as a view names it. */
export function viewedPage(visit: Visit, at: PageVisit): ViewedPage {
  return {
    organizationId: visit.site.organizationId,
    siteId: visit.site.siteId,
    siteSpaceId: at.location.siteSpace.id,
    spaceId: at.space.spaceId,
    pageId: at.page.id,
    origin: visit.origin,
  };
}

/** Crawlers, link previews, monitors and HTTP clients (`isbot`'s maintained pattern): their requests are not page views. */
export function isViewedByBot(userAgent: string): boolean {
  return isbot(userAgent);
}

/** Koa's context as a viewed request. */
export function requestOf(ctx: ParameterizedContext): ViewedRequest {
  return { method: ctx.method, status: ctx.status, path: ctx.path, querystring: ctx.querystring, ip: ctx.ip, header: (name) => ctx.get(name) };
}

/** Page views of published sites, counted in publishing's site insights and reported to the integration service (its `site_view` events). */
export interface SiteViews extends ViewRecorder {
  /** The anonymous id of a visitor (their user agent and address) on a day, as their views carry it. */
  anonymousId(userAgent: string, ip: string, at: Date): string;
  /** Sends what is waiting, then closes the connection. */
  close(): Promise<void>;
}

/** A view as recorded while answering: its anonymous id is derived when it is sent, off the request's path. */
interface WaitingView {
  view: SiteView;
  ip: string;
}

/** Where views go: publishing's insights always, the integration service's `site_view` events when it is configured. */
export interface ViewSinks {
  insights: PromiseClient<typeof SiteInsightsServiceService>;
  integrationScripts: PromiseClient<typeof ScriptServiceService> | undefined;
}

/** The URL a visitor viewed, without the visitor-auth token a first visit may carry. */
function viewedUrl(request: ViewedRequest, page: ViewedPage): string {
  let query = request.querystring;
  if (query.includes("jwt_token")) {
    const params = new URLSearchParams(query);
    params.delete("jwt_token");
    query = params.toString();
  }
  return `${page.origin}${request.path}${query ? `?${query}` : ""}`;
}

/** The first tag of Accept-Language ("" when none or any). */
function languageOf(header: string): string {
  const first = header.split(",", 1)[0]!.split(";", 1)[0]!.trim();
  return first === "*" ? "" : first.slice(0, MAX_LANGUAGE);
}

/**
 * Page views as publishing's site insights (`page_view` events, counted per page and day) and, when
 * it is configured, the integration service's `site_view` events: each HTML page a visitor is
 * answered (200, or 304 for a page their browser kept) is recorded without waiting and sent in
 * batches, every second or every {@link BATCH} views, to both at once. While a service is slow or
 * down, up to {@link MAX_WAITING} views wait (the oldest dropped beyond); a batch a service refuses
 * is dropped for it. Both are counted in a warning written at most once a minute.
 *
 * Nothing identifying is sent and no cookie is set: a visitor's anonymous id is an HMAC of their
 * user agent, address and day under a key this process draws at start.
 */
export function openSiteViews(sinks: ViewSinks, logger: Logger): SiteViews {
  const { insights, integrationScripts } = sinks;
  const key = randomBytes(32);
  const warnDropped = throttledWarning(logger, "site views dropped: more were waiting than the reader keeps", "views");
  const warnFailed = throttledWarning(logger, "site views not reported: the integration service failed", "views");
  const warnNotCounted = throttledWarning(logger, "site views not counted: the publishing service failed", "views");

  // A ring of waiting views: recording and dropping the oldest are O(1).
  const ring = new Array<WaitingView | undefined>(MAX_WAITING);
  let head = 0;
  let size = 0;
  const take = (count: number): WaitingView[] => {
    const taken: WaitingView[] = [];
    while (taken.length < count && size > 0) {
      taken.push(ring[head]!);
      ring[head] = undefined;
      head = (head + 1) % MAX_WAITING;
      size -= 1;
    }
    return taken;
  };

  // A visitor views several pages a day: their id is derived once, not per view (an HMAC costs
  // more than replaying a kept page). Forgotten all at once when full; the next view derives it again.
  const recentIds = new Map<string, string>();
  const visitorId = (userAgent: string, ip: string, at: Date): string => {
    const visitor = `${userAgent.slice(0, MAX_USER_AGENT)}\n${ip}\n${at.toISOString().slice(0, 10)}`;
    let id = recentIds.get(visitor);
    if (id === undefined) {
      id = createHmac("sha256", key).update(visitor).digest("base64url").slice(0, 22);
      if (recentIds.size >= RECENT_VISITORS) recentIds.clear();
      recentIds.set(visitor, id);
    }
    return id;
  };
  const anonymousId = (waiting: WaitingView): string => visitorId(waiting.view.userAgent, waiting.ip, waiting.view.viewedAt!);

  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> | undefined;
  let closed = false;

  // Sends a batch; then the next ones while full batches wait (a burst), or everything when closing.
  const drain = async (): Promise<void> => {
    while (size > 0) {
      const batch = take(BATCH);
      const [reported, counted] = await Promise.allSettled([
        integrationScripts?.reportSiteViews({ views: batch.map((waiting) => ({ ...waiting.view, anonymousId: anonymousId(waiting) })) }),
        // One receipt for the batch, not one per view: publishing counts it once, whatever the retries.
        insights.trackSiteEvents({
          batchId: randomUUID(),
          events: batch.map(({ view }) => ({
            id: "",
            organizationId: view.organizationId,
            siteId: view.siteId,
            type: "page_view",
            siteSpaceId: view.siteSpaceId,
            spaceId: view.spaceId,
            pageId: view.pageId,
            rating: "",
            occurredAt: view.viewedAt!,
          })),
        }),
      ]);
      if (reported.status === "rejected" || counted.status === "rejected") {
        const dropped = batch.length + (closed ? take(size).length : 0);
        if (reported.status === "rejected") warnFailed(dropped, { error: messageOf(reported.reason) });
        if (counted.status === "rejected") warnNotCounted(dropped, { error: messageOf(counted.reason) });
        if (closed) return;
      }
      if (!closed && size < BATCH) return;
    }
  };
  const flush = (): Promise<void> => {
    sending ??= drain().finally(() => {
      sending = undefined;
      schedule();
    });
    return sending;
  };
  const schedule = (): void => {
    if (timer || sending || closed || size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, FLUSH_INTERVAL_MS);
    timer.unref();
  };

  return {
    anonymousId: visitorId,

    record(request, page) {
      if (closed || request.method !== "GET" || (request.status !== 200 && request.status !== 304)) return;
      const userAgent = request.header("user-agent");
      if (isViewedByBot(userAgent) || request.header("sec-purpose").includes("prefetch") || request.header("purpose") === "prefetch") return;
      const url = viewedUrl(request, page);
      if (url.length > MAX_URL) return;
      if (size === MAX_WAITING) {
        take(1);
        warnDropped(1);
      }
      ring[(head + size) % MAX_WAITING] = {
        view: {
          organizationId: page.organizationId,
          siteId: page.siteId,
          siteSpaceId: page.siteSpaceId,
          spaceId: page.spaceId,
          pageId: page.pageId,
          url,
          referrer: request.header("referer").slice(0, MAX_REFERRER),
          anonymousId: "",
          userAgent: userAgent.slice(0, MAX_USER_AGENT),
          language: languageOf(request.header("accept-language")),
          viewedAt: new Date(),
        },
        ip: request.ip,
      };
      size += 1;
      if (size < BATCH) {
        schedule();
        return;
      }
      clearTimeout(timer);
      timer = undefined;
      void flush();
    },

    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await sending;
      await flush();
    },
  };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
