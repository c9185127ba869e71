import type { EntityManager } from "@mikro-orm/postgresql";
import { sectionTitleFrom, SiteSection, validateIcon, validateSectionTitle } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { requireSiteCaller } from "../shared/access.js";
import { newSection, sectionViews, type SectionView } from "../shared/sections.js";
import { appendSiteSpace, readSpacesOfSite } from "../shared/site-spaces.js";
import { findSite, requirePublishableSpace } from "../shared/sites.js";

export interface AddSiteSectionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** The space that becomes the section's first site-space. */
  spaceId: string;
  /** "" for the space's title. */
  title: string;
  /** "" for none. */
  icon: string;
  /** Created as a draft (not live). */
  draft?: boolean;
}

/**
 * Adds a section at the end of the site, with the space as its first site-space (organization
 * admins only). The first section of a site that has site-spaces at its root takes them first: a
 * section titled like the site, holding them in their order with their default, becomes the
 * default section and the new one follows it. Records `site_section.created` (and
 * `site_space.created` for the space).
 */
export async function addSiteSection(em: EntityManager, input: AddSiteSectionInput, deps: UseCaseDeps): Promise<SectionView> {
  const title = input.title === "" ? undefined : validateSectionTitle(input.title);
  const icon = validateIcon(input.icon);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const space = await requirePublishableSpace(deps, access, input.spaceId, "spaceId");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId, [space]);
  const { site, section } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const hasSections = (await tx.count(SiteSection, { siteId: found.id })) > 0;
    const rootSpaces = hasSections ? [] : await tx.find(SiteSpace, { siteId: found.id, sectionId: null });
    if (rootSpaces.length > 0) {
      const first = await newSection(tx, deps, access.caller, found, sectionTitleFrom(found.title), null);
      for (const siteSpace of rootSpaces) siteSpace.sectionId = first.id;
      first.defaultSiteSpaceId = found.defaultSiteSpaceId;
      found.defaultSiteSpaceId = null;
    }
    const created = await newSection(tx, deps, access.caller, found, title ?? sectionTitleFrom(space.title), icon, input.draft ?? false);
    await appendSiteSpace(tx, deps, access.caller, found, space, created);
    return { site: found, section: created };
  });
  const [view] = await sectionViews(em, views, access, site, [section]);
  return view!;
}
