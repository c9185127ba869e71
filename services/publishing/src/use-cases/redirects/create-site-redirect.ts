import type { EntityManager } from "@mikro-orm/postgresql";
import { validateSource } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import {
  insertRedirect,
  requireFreeSource,
  requireRoomForRedirects,
  resolveDestination,
  type DestinationRequest,
  type SiteRedirectView,
} from "../shared/site-redirects.js";
import { findSite } from "../shared/sites.js";

export interface CreateSiteRedirectInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  source: string;
  captureWildcard: boolean;
  draft: boolean;
  permanent: boolean;
  destination: DestinationRequest;
}

/**
 * Adds a redirect to a site (site admins only): its source free in its mode (live or
 * draft), its destination the site's, within the site's limit. Records `site_redirect.created`.
 */
export async function createSiteRedirect(em: EntityManager, input: CreateSiteRedirectInput, deps: UseCaseDeps): Promise<SiteRedirectView> {
  const source = validateSource(input.source);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const destination = await resolveDestination(tx, deps, access, site, input.destination);
    await requireFreeSource(tx, site, source, input.draft, null);
    await requireRoomForRedirects(tx, site, 1);
    const redirect = insertRedirect(
      tx,
      site,
      { source, draft: input.draft, permanent: input.permanent, captureWildcard: input.captureWildcard, destination },
      { actor: access.caller, now: deps.clock() },
    );
    return { redirect };
  });
}
