import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { sitePublished, siteUnpublished } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller, type CallerInput } from "./access.js";
import { findSite, siteView, type SiteView } from "./sites.js";

export interface PublicationInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/**
 * Publishes or unpublishes a site (site admins only): the only way `published` changes.
 * Unpublishing keeps every setting, site-space and share link. Records `site.published` or
 * `site.unpublished` when the state changed (doing it twice is not an error).
 */
export async function setPublished(em: EntityManager, input: PublicationInput & { published: boolean }, deps: UseCaseDeps): Promise<SiteView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const site = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    if (found.published === input.published) return found;
    found.published = input.published;
    found.updatedAt = deps.clock();
    const event = { organizationId: found.organizationId, actor: access.caller };
    if (input.published) recordEvent(tx, sitePublished, { ...event, payload: { siteId: found.id, visibility: found.visibility } });
    else recordEvent(tx, siteUnpublished, { ...event, payload: { siteId: found.id } });
    return found;
  });
  return siteView(em, access, site);
}
