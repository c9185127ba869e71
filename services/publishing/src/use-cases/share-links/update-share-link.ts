import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateName } from "../../domain/share-link.js";
import { shareLinkUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireOrganizationRole } from "../shared/access.js";
import { findShareLink, type ShareLinkView } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";

export interface UpdateShareLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  shareLinkId: string;
  name: string | undefined;
  active: boolean | undefined;
}

/**
 * Renames, activates or deactivates a share link (organization admins only); a deactivated link
 * stops resolving at once. Records `share_link.updated` with what changed.
 */
export async function updateShareLink(em: EntityManager, input: UpdateShareLinkInput, deps: UseCaseDeps): Promise<ShareLinkView> {
  const name = input.name === undefined ? undefined : validateName(input.name);
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId);
    const shareLink = await findShareLink(tx, site, input.shareLinkId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (name !== undefined && name !== shareLink.name) {
      changes.name = { from: shareLink.name, to: name };
      shareLink.name = name;
    }
    if (input.active !== undefined && input.active !== shareLink.active) {
      changes.active = { from: shareLink.active, to: input.active };
      shareLink.active = input.active;
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, shareLinkUpdated, {
        organizationId: site.organizationId,
        actor: access.caller,
        payload: { siteId: site.id, shareLinkId: shareLink.id, changedFields: Object.keys(changes), changes },
      });
    }
    return { shareLink, site };
  });
}
