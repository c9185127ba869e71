import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { siteViewEvent } from "../../domain/platform/events.js";
import { recordDelivery, wakeDelivery } from "../shared/deliveries.js";
import { recipientsFor } from "../shared/recipients.js";

export interface SiteViewReport {
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  spaceId: string;
  pageId: string;
  url: string;
  referrer: string;
  anonymousId: string;
  userAgent: string;
  language: string;
}

const MAX_VIEWS = 1000;

/** Page views the reader reports: every installation that reads the site's views hears `site_view`. */
export async function reportSiteViews(em: EntityManager, input: { views: SiteViewReport[] }, deps: UseCaseDeps): Promise<number> {
  if (input.views.length > MAX_VIEWS) throw AppError.invalidArgument(`views: at most ${MAX_VIEWS} at once`);
  const views = input.views.filter((view) => isId(view.organizationId) && isId(view.siteId) && view.url.length <= 4096);
  const recorded = await deps.unitOfWork.run(em, async (tx) => {
    let count = 0;
    const bySite = new Map<string, SiteViewReport[]>();
    for (const view of views) bySite.set(`${view.organizationId}/${view.siteId}`, [...(bySite.get(`${view.organizationId}/${view.siteId}`) ?? []), view]);
    for (const siteViews of bySite.values()) {
      const first = siteViews[0];
      if (!first) continue;
      const recipients = await recipientsFor(tx, { organizationId: first.organizationId, kind: "site", targetId: first.siteId, scope: "site:views:read" });
      for (const view of siteViews) {
        const viewId = randomUUID();
        for (const recipient of recipients) {
          recordDelivery(tx, deps, {
            ...recipient,
            type: "site_view",
            payload: (eventId) =>
              siteViewEvent({
                eventId,
                installationId: recipient.installationId,
                siteId: view.siteId,
                ...(view.siteSpaceId ? { siteSpaceId: view.siteSpaceId } : {}),
                ...(view.pageId ? { pageId: view.pageId } : {}),
                visitor: {
                  anonymousId: view.anonymousId,
                  cookies: {},
                  userAgent: view.userAgent,
                  ip: "",
                  ...(view.language ? { language: view.language } : {}),
                },
                url: view.url,
                referrer: view.referrer,
              }),
            sourceKey: `site_view:${viewId}:${recipient.installationId}`,
          });
          count += 1;
        }
      }
    }
    return count;
  });
  if (recorded > 0) wakeDelivery(deps);
  return recorded;
}
