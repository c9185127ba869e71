import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { appendSiteSpace, defaultSection, findSection, siteSpaceViews, type SiteSpaceView, readSpacesOfSite } from "../shared/site-spaces.js";
import { findSite, requirePublishableSpace } from "../shared/sites.js";

export interface AddSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  spaceId: string;
  /** The section to add it to; "" for the default section, or the root of a site without sections. */
  sectionId: string;
  /** Created as a draft (not live). */
  draft?: boolean;
}

/**
 * Adds a space of the organization (readable by the caller) at the end of a section (the one named,
 * else the default one) or of the root of a site without sections, at a free path from its title;
 * its level's default when it is its first. Organization admins only. Records `site_space.created`.
 */
export async function addSiteSpace(em: EntityManager, input: AddSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const space = await requirePublishableSpace(deps, access, input.spaceId, "spaceId");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId, [space]);
  const { site, siteSpace } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const section = input.sectionId !== "" ? await findSection(tx, found, input.sectionId, "sectionId") : await defaultSection(tx, found);
    const created = await appendSiteSpace(tx, deps, access.caller, found, space, section);
    created.draft = input.draft ?? false;
    return { site: found, siteSpace: created };
  });
  const [view] = await siteSpaceViews(em, views, access, site, [siteSpace]);
  if (!view) throw AppError.notFound("Site space");
  return view;
}
