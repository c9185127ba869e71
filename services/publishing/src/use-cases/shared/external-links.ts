import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteExternalLink } from "../../domain/site-external-link.js";
import { SiteSection } from "../../domain/site-section.js";
import type { ExternalLinkView } from "./structure.js";

export type { ExternalLinkView } from "./structure.js";

/** An external link of the site; another site's (or none) is "Site external link not found". */
export async function findExternalLink(em: EntityManager, site: Site, linkId: string, options: { lock?: boolean } = {}): Promise<SiteExternalLink> {
  return findOwned(em, SiteExternalLink, { siteId: site.id }, linkId, options);
}

/** External links live among sections: a site without sections has a flat list of site-spaces and none. */
export async function requireSections(em: EntityManager, site: Site): Promise<void> {
  if ((await em.count(SiteSection, { siteId: site.id })) === 0)
    throw AppError.invalidArgument("site: external links need a site with sections (add a section first)");
}

export function externalLinkView(link: SiteExternalLink, site: Site): ExternalLinkView {
  return { link, site };
}
