import { SiteExternalLink } from "../../domain/site-external-link.js";
import { touchSpaces } from "../shared/publications.js";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { ShareLink } from "../../domain/share-link.js";
import { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSectionGroup } from "../../domain/site-section-group.js";
import { SiteSpace } from "../../domain/site-space.js";
import { SiteRedirect } from "../../domain/site-redirect.js";
import { SiteTeamGrant, SiteUserGrant } from "../../domain/site-permission.js";
import { siteDeleted } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface DeleteSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/**
 * Deletes a site with its section groups, sections, site-spaces, share links, redirects and grants
 * (site admins only); done when it no longer exists (or the caller cannot see it). Records `site.deleted` with the spaces it published.
 */
export async function deleteSite(em: EntityManager, input: DeleteSiteInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  await deps.unitOfWork.run(em, async (tx) => {
    let site: Site;
    try {
      site = await findSite(tx, access, input.siteId, { lock: true });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    const siteSpaces = await tx.find(SiteSpace, { siteId: site.id }, { orderBy: { position: "asc", id: "asc" } });
    const spaceIds = [...new Set(siteSpaces.map((siteSpace) => siteSpace.spaceId))];
    touchSpaces(tx, spaceIds);
    await tx.nativeDelete(SiteSpace, { siteId: site.id });
    await tx.nativeDelete(SiteExternalLink, { siteId: site.id });
    await tx.nativeDelete(SiteSection, { siteId: site.id });
    await tx.nativeDelete(SiteSectionGroup, { siteId: site.id });
    await tx.nativeDelete(ShareLink, { siteId: site.id });
    await tx.nativeDelete(SiteRedirect, { siteId: site.id });
    await tx.nativeDelete(SiteUserGrant, { siteId: site.id });
    await tx.nativeDelete(SiteTeamGrant, { siteId: site.id });
    tx.remove(site);
    recordEvent(tx, siteDeleted, { organizationId: site.organizationId, actor: access.caller, payload: { siteId: site.id, spaceIds } });
  });
}
