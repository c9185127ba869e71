import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { shareLinkDeleted } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findShareLink } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";

export interface DeleteShareLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  shareLinkId: string;
}

/** Deletes a share link (site admins only); done when it no longer exists. Records `share_link.deleted`. */
export async function deleteShareLink(em: EntityManager, input: DeleteShareLinkInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId);
    try {
      const shareLink = await findShareLink(tx, site, input.shareLinkId);
      tx.remove(shareLink);
      recordEvent(tx, shareLinkDeleted, { organizationId: site.organizationId, actor: access.caller, payload: { siteId: site.id, shareLinkId: shareLink.id } });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
  });
}
