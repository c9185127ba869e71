import { parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateName } from "../../domain/share-link.js";
import { shareLinkUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findShareLink, type ShareLinkView } from "../shared/share-links.js";
import { findSite } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["name", "active"] as const;

export interface UpdateShareLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  shareLinkId: string;
  /** Field paths, snake_case or camelCase; at least one. */
  updateMask: string[] | undefined;
  name: string;
  active: boolean;
}

/**
 * Renames, activates or deactivates a share link: what the mask names (site admins only); a deactivated link
 * stops resolving at once. Records `share_link.updated` with what changed.
 */
export async function updateShareLink(em: EntityManager, input: UpdateShareLinkInput, deps: UseCaseDeps): Promise<ShareLinkView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS);
  const name = fields.has("name") ? validateName(input.name) : undefined;
  const active = fields.has("active") ? input.active : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId);
    const shareLink = await findShareLink(tx, site, input.shareLinkId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (name !== undefined && name !== shareLink.name) {
      changes.name = { from: shareLink.name, to: name };
      shareLink.name = name;
    }
    if (active !== undefined && active !== shareLink.active) {
      changes.active = { from: shareLink.active, to: active };
      shareLink.active = active;
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
