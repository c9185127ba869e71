import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { pageFeedbackEvent, type PageFeedbackRating } from "../../domain/platform/events.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { recipientsFor } from "../shared/recipients.js";
import type { SiteViewReport } from "./report-site-views.js";

const RATINGS: readonly string[] = ["good", "ok", "bad"] satisfies PageFeedbackRating[];
/** GitBook's bound on a feedback comment. */
const MAX_COMMENT = 512;

/** A visitor's feedback on a page (posted to the reader): every installation that reads the site's feedback hears `page_feedback`. */
export async function reportPageFeedback(
  em: EntityManager,
  input: { view: SiteViewReport; rating: string; comment: string },
  deps: UseCaseDeps,
): Promise<number> {
  const { view } = input;
  if (!isId(view.organizationId) || !isId(view.siteId)) throw AppError.notFound("Site");
  if (!RATINGS.includes(input.rating)) throw AppError.invalidArgument(`rating: must be one of ${RATINGS.join(", ")}`);
  if (input.comment.length > MAX_COMMENT) throw AppError.invalidArgument(`comment: at most ${MAX_COMMENT} characters`);
  const feedbackId = randomUUID();
  const recorded = await deps.unitOfWork.run(em, async (tx) => {
    const recipients = await recipientsFor(tx, { organizationId: view.organizationId, kind: "site", targetId: view.siteId, scope: "page:feedback:read" });
    for (const recipient of recipients) {
      recordDelivery(tx, deps, {
        ...recipient,
        type: "page_feedback",
        payload: (eventId) =>
          pageFeedbackEvent({
            eventId,
            installationId: recipient.installationId,
            siteId: view.siteId,
            ...(view.pageId ? { pageId: view.pageId } : {}),
            feedback: { rating: input.rating as PageFeedbackRating, ...(input.comment ? { comment: input.comment } : {}) },
            visitor: { anonymousId: view.anonymousId, cookies: {}, userAgent: view.userAgent, ip: "", ...(view.language ? { language: view.language } : {}) },
            url: view.url,
            referrer: view.referrer,
          }),
        sourceKey: `page_feedback:${feedbackId}:${recipient.installationId}`,
      });
    }
    return recipients.length;
  });
  if (recorded > 0) wakeDelivery(deps);
  return recorded;
}
