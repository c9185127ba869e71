import { randomUUID } from "node:crypto";
import type { ParameterizedContext } from "koa";
import type { ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import type { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import type { PromiseClient } from "@imprint/runtime/core";
import type { ReaderData } from "./data.js";
import { readPage } from "./pages.js";
import { chromeOf } from "./site.js";
import type { SiteViews } from "./site-views.js";
import { requestOf, viewedPage } from "./site-views.js";
import { FEEDBACK_SENT_ID } from "./views/feedback.js";
import type { Visit } from "./visit.js";

/** GitBook's PageFeedbackRating. */
const RATINGS = new Set(["good", "ok", "bad"]);
/** GitBook's bound on a feedback comment. */
const MAX_COMMENT = 512;
/** A feedback form's body at most (a rating and a comment of 512 characters, percent-encoded). */
const MAX_BODY_BYTES = 8192;

/** Where a page's feedback goes: publishing's site insights, and the integration service's `page_feedback` events when it is configured. */
export interface FeedbackSinks {
  insights: PromiseClient<typeof SiteInsightsServiceService>;
  integrationScripts: PromiseClient<typeof ScriptServiceService> | undefined;
  views: SiteViews;
}

/**
 * "Was this page helpful?": the page's form posted to the page's own URL, without script. Answers
 * false when it does not apply (no page there, or the site's customization has feedback off), for
 * the caller to answer as for any other POST. Refused: a post from another origin (403: the
 * form's own page sends its Origin, or `Sec-Fetch-Site: same-origin`), a body that is not a form
 * or too long (400, 413), a rating other than good, ok or bad (400). Counted in the site's insights
 * and told to the installations reading the site's feedback; then 303 back to the page's thank-you note.
 */
export async function serveFeedback(ctx: ParameterizedContext, visit: Visit, data: ReaderData, sinks: FeedbackSinks): Promise<boolean> {
  const at = await readPage(visit, data, visit.segments);
  if (!at || !chromeOf(visit.site, at.location.siteSpace.customizationJson || visit.site.customizationJson).feedback) return false;
  ctx.set("Cache-Control", "no-store");
  const origin = ctx.get("origin");
  if (origin ? origin !== visit.origin : ctx.get("sec-fetch-site") !== "same-origin") {
    answer(ctx, 403, "Feedback is taken from the site's own pages only.");
    return true;
  }
  if (!ctx.is("application/x-www-form-urlencoded")) {
    answer(ctx, 400, "The feedback must be a form.");
    return true;
  }
  const body = await readBody(ctx);
  if (body === null) {
    answer(ctx, 413, "The feedback is too long.");
    return true;
  }
  const form = new URLSearchParams(body);
  const rating = form.get("rating") ?? "";
  const comment = (form.get("comment") ?? "").trim();
  if (!RATINGS.has(rating)) {
    answer(ctx, 400, "rating: must be good, ok or bad");
    return true;
  }
  if (comment.length > MAX_COMMENT) {
    answer(ctx, 400, `comment: at most ${MAX_COMMENT} characters`);
    return true;
  }
  const page = viewedPage(visit, at);
  const request = requestOf(ctx);
  const postedAt = new Date();
  const view = {
    organizationId: page.organizationId,
    siteId: page.siteId,
    siteSpaceId: page.siteSpaceId,
    spaceId: page.spaceId,
    pageId: page.pageId,
    url: `${page.origin}${ctx.path}`,
    referrer: "",
    anonymousId: sinks.views.anonymousId(request.header("user-agent"), request.ip, postedAt),
    userAgent: request.header("user-agent").slice(0, 512),
    language: "",
    viewedAt: postedAt,
  };
  await Promise.all([
    sinks.insights.trackSiteEvents({
      batchId: "",
      events: [
        {
          id: randomUUID(),
          organizationId: page.organizationId,
          siteId: page.siteId,
          type: comment ? "page_post_feedback_comment" : "page_post_feedback",
          siteSpaceId: page.siteSpaceId,
          spaceId: page.spaceId,
          pageId: page.pageId,
          rating,
          occurredAt: postedAt,
        },
      ],
    }),
    sinks.integrationScripts?.reportPageFeedback({ view, rating, comment }),
  ]);
  ctx.status = 303;
  ctx.set("Location", `${ctx.path}#${FEEDBACK_SENT_ID}`);
  return true;
}

function answer(ctx: ParameterizedContext, status: number, message: string): void {
  ctx.status = status;
  ctx.type = "text/plain; charset=utf-8";
  ctx.body = message;
}

/** The request's body as text; null when longer than {@link MAX_BODY_BYTES}. */
async function readBody(ctx: ParameterizedContext): Promise<string | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
