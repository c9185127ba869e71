import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { appendSiteSpace, type SiteSpaceView } from "./shared/site-spaces.js";
import { effectiveDefaults, findSite, requirePublishableSpace } from "./shared/sites.js";

export interface AddSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  spaceId: string;
  /** Must be empty: sites have no sections yet. */
  sectionId: string;
}

/**
 * Adds a space of the organization (readable by the caller) at the end of the site's root, at a
 * free path from its title; the site's default when it is its first. Organization admins only.
 * Records `site_space.created`.
 */
export async function addSiteSpace(em: EntityManager, input: AddSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  if (input.sectionId !== "") throw AppError.invalidArgument("sectionId: sites have no sections yet; leave it out to add the space at the site's root");
  const access = await requireOrganization(deps, input.caller, input.organizationId, "admin");
  const space = await requirePublishableSpace(deps, access, input.spaceId, "spaceId");
  const { site, siteSpace } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    return { site: found, siteSpace: await appendSiteSpace(tx, deps, access.caller, found, space) };
  });
  const defaultId = (await effectiveDefaults(em, [site.id])).get(site.id) ?? null;
  return { siteSpace, space, isDefault: defaultId === siteSpace.id, site };
}
