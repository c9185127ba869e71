import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { siteExternalLinkDeleted } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findExternalLink } from "../shared/external-links.js";
import { findSite } from "../shared/sites.js";
import { levelItems, renumber } from "../shared/top-level.js";

export interface DeleteSiteExternalLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  linkId: string;
}

/** Removes an external link (site admins only); answers whether it existed. Records `site_external_link.deleted`. */
export async function deleteSiteExternalLink(em: EntityManager, input: DeleteSiteExternalLinkInput, deps: UseCaseDeps): Promise<{ removed: boolean }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const link = await findExternalLink(tx, site, input.linkId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    });
    if (!link) return { removed: false };
    const groupId = link.sectionGroupId ?? null;
    tx.remove(link);
    renumber((await levelItems(tx, site.id, groupId)).filter((item) => item.entity.id !== link.id).map((item) => item.entity));
    recordEvent(tx, siteExternalLinkDeleted, { organizationId: site.organizationId, actor: access.caller, payload: { siteId: site.id, linkId: link.id } });
    return { removed: true };
  });
}
