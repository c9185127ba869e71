import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { validateAuthUrl } from "../../domain/site.js";
import { siteUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { publishingAuthView, type PublishingAuthView } from "../shared/publishing-auth.js";
import { findSite } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["fallback_url", "logout_url"] as const;

export interface UpdateSitePublishingAuthInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** Given, and checked, on every update: it is not a masked field. */
  backend: string;
  /** Field paths, snake_case or camelCase; none changes no URL. */
  updateMask: string[] | undefined;
  /** "" unsets it. */
  fallbackUrl: string;
  /** "" unsets it. */
  logoutUrl: string;
}

/**
 * Sets a site's visitor-auth backend (custom: integrations do not exist yet) and its fallback and
 * logout URLs, those the mask names (site admins only). Records `site.updated` with the URLs that changed.
 */
export async function updateSitePublishingAuth(em: EntityManager, input: UpdateSitePublishingAuthInput, deps: UseCaseDeps): Promise<PublishingAuthView> {
  if (input.backend === "integration") throw AppError.invalidArgument("backend: integration backends are not supported yet; use custom");
  if (input.backend !== "custom") throw AppError.invalidArgument("backend: must be custom or integration");
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const fallbackUrl = fields.has("fallback_url") ? validateAuthUrl("fallbackURL", input.fallbackUrl) : undefined;
  const logoutUrl = fields.has("logout_url") ? validateAuthUrl("logoutURL", input.logoutUrl) : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const site = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (fallbackUrl !== undefined && fallbackUrl !== found.visitorAuthFallbackUrl) {
      changes["publishing.auth.fallbackURL"] = { from: found.visitorAuthFallbackUrl, to: fallbackUrl };
      found.visitorAuthFallbackUrl = fallbackUrl;
    }
    if (logoutUrl !== undefined && logoutUrl !== found.visitorAuthLogoutUrl) {
      changes["publishing.auth.logoutURL"] = { from: found.visitorAuthLogoutUrl, to: logoutUrl };
      found.visitorAuthLogoutUrl = logoutUrl;
    }
    if (Object.keys(changes).length > 0) {
      found.updatedAt = deps.clock();
      recordEvent(tx, siteUpdated, {
        organizationId: found.organizationId,
        actor: access.caller,
        payload: { siteId: found.id, changedFields: Object.keys(changes), changes },
      });
    }
    return found;
  });
  return publishingAuthView(site);
}
