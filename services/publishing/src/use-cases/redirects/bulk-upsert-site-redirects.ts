import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { MAX_BULK_REDIRECTS, SiteRedirect, validateSource } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import {
  changeRedirect,
  insertRedirect,
  removeRedirect,
  requireRoomForRedirects,
  resolveDestination,
  type DestinationRequest,
} from "../shared/site-redirects.js";
import { findSite } from "../shared/sites.js";

export interface RedirectUpsertInput {
  source: string;
  /** live ("" too), draft or publish. */
  intent: string;
  captureWildcard: boolean;
  /** Unset keeps a replaced redirect's (false for a new one). */
  permanent: boolean | undefined;
  /** Unset deletes the source's redirect in the intent's mode. */
  destination: DestinationRequest | undefined;
}

export interface BulkUpsertSiteRedirectsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  redirects: RedirectUpsertInput[];
}

export type RedirectUpsertResult =
  | { status: "created" | "updated" | "published"; source: string; draft: boolean; id: string }
  | { status: "deleted"; source: string; draft: boolean }
  | { status: "error"; source: string; draft: boolean; error: string };

/**
 * Applies up to 500 redirect changes by source, in order, in one transaction (site admins
 * only): a destination creates or replaces the source's redirect in the intent's mode, none deletes
 * it, `publish` makes the source's draft live (replacing its live one). An item refused (its
 * source, its destination, the site's limit) is answered as an error naming the field; the others
 * still apply. Records each redirect's created, updated or deleted event.
 */
export async function bulkUpsertSiteRedirects(em: EntityManager, input: BulkUpsertSiteRedirectsInput, deps: UseCaseDeps): Promise<RedirectUpsertResult[]> {
  if (input.redirects.length === 0) throw AppError.invalidArgument("redirects: must hold at least 1 item");
  if (input.redirects.length > MAX_BULK_REDIRECTS) throw AppError.invalidArgument(`redirects: must hold at most ${MAX_BULK_REDIRECTS} items`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const options = { actor: access.caller, now: deps.clock() };
    const results: RedirectUpsertResult[] = [];
    for (const [index, item] of input.redirects.entries()) {
      const field = `redirects[${index}]`;
      const draft = item.intent === "draft";
      try {
        if (!["", "live", "draft", "publish"].includes(item.intent)) throw AppError.invalidArgument(`${field}.intent: must be live, draft or publish`);
        const source = validateSource(item.source, `${field}.source`);
        if (item.intent === "publish") {
          const pending = await tx.findOne(SiteRedirect, { siteId: site.id, source, draft: true });
          if (!pending) throw AppError.invalidArgument(`${field}.source: no draft redirect from ${source} to publish`);
          const live = await tx.findOne(SiteRedirect, { siteId: site.id, source, draft: false });
          if (live) {
            removeRedirect(tx, site, live, options.actor);
            // The live row goes before the draft takes its (site, source, live) place.
            await tx.flush();
          }
          changeRedirect(tx, site, pending, { draft: false }, options);
          results.push({ status: "published", source, draft: false, id: pending.id });
          continue;
        }
        const existing = await tx.findOne(SiteRedirect, { siteId: site.id, source, draft });
        if (!item.destination) {
          if (existing) removeRedirect(tx, site, existing, options.actor);
          results.push({ status: "deleted", source, draft });
          continue;
        }
        const destination = await resolveDestination(tx, deps, access, site, item.destination, `${field}.destination`);
        if (existing) {
          changeRedirect(tx, site, existing, { captureWildcard: item.captureWildcard, permanent: item.permanent, destination }, options);
          results.push({ status: "updated", source, draft, id: existing.id });
        } else {
          await requireRoomForRedirects(tx, site, 1);
          const redirect = insertRedirect(
            tx,
            site,
            { source, draft, permanent: item.permanent ?? false, captureWildcard: item.captureWildcard, destination },
            options,
          );
          // Counted by the next item's check, and found by a later item naming the same source.
          await tx.flush();
          results.push({ status: "created", source, draft, id: redirect.id });
        }
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== "invalid_argument") throw error;
        results.push({ status: "error", source: item.source, draft, error: error.message });
      }
    }
    return results;
  });
}
