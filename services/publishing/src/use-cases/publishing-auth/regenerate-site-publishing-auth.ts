import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { newVisitorAuthKey } from "../../domain/site.js";
import { sitePublishingAuthRegenerated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { publishingAuthView, type PublishingAuthView } from "../shared/publishing-auth.js";
import { findSite } from "../shared/sites.js";

export interface RegenerateSitePublishingAuthInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

/**
 * Replaces a site's visitor-auth signing key (site admins only): the old key is gone at
 * once, so no token it signed verifies any more. Records `site.publishing_auth_regenerated`.
 */
export async function regenerateSitePublishingAuth(
  em: EntityManager,
  input: RegenerateSitePublishingAuthInput,
  deps: UseCaseDeps,
): Promise<PublishingAuthView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const site = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    found.visitorAuthKey = newVisitorAuthKey();
    found.updatedAt = deps.clock();
    recordEvent(tx, sitePublishingAuthRegenerated, { organizationId: found.organizationId, actor: access.caller, payload: { siteId: found.id } });
    return found;
  });
  return publishingAuthView(site);
}
