import { parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateLinkUrl } from "../../domain/site-external-link.js";
import { validateIcon, validateSectionDescription, validateSectionTitle } from "../../domain/site-section.js";
import { validateCondition } from "../../domain/site-space.js";
import { siteExternalLinkUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { externalLinkView, findExternalLink, type ExternalLinkView } from "../shared/external-links.js";
import { parentGroup } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

const UPDATABLE_FIELDS = ["title", "url", "description", "icon", "condition", "section_group_id", "draft"] as const;

export interface UpdateSiteExternalLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  linkId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  title: string;
  url: string;
  /** "" removes it. */
  description: string;
  /** "" removes it. */
  icon: string;
  /** "" removes it. */
  condition: string;
  /** The group to move it into, at its end; "" moves it to the top level. */
  sectionGroupId: string;
  draft: boolean;
}

/**
 * Changes an external link, or moves it to another group: what the mask names (none: the link as it
 * is). Organization admins only. Records `site_external_link.updated`.
 */
export async function updateSiteExternalLink(em: EntityManager, input: UpdateSiteExternalLinkInput, deps: UseCaseDeps): Promise<ExternalLinkView> {
  const masked = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const fields = {
    title: masked.has("title") ? validateSectionTitle(input.title) : undefined,
    url: masked.has("url") ? validateLinkUrl(input.url) : undefined,
    description: masked.has("description") ? validateSectionDescription(input.description) : undefined,
    icon: masked.has("icon") ? validateIcon(input.icon) : undefined,
    condition: masked.has("condition") ? validateCondition(input.condition) : undefined,
    draft: masked.has("draft") ? input.draft : undefined,
  };
  const sectionGroupId = masked.has("section_group_id") ? input.sectionGroupId : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const link = await findExternalLink(tx, site, input.linkId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const current = link as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined || value === (current[name] ?? null)) continue;
      changes[name] = { from: current[name] ?? null, to: value };
      current[name] = value;
    }
    if (sectionGroupId !== undefined) {
      const groupId = (await parentGroup(tx, site, sectionGroupId, "parent"))?.id ?? null;
      if (groupId !== (link.sectionGroupId ?? null)) {
        changes.parent = { from: link.sectionGroupId ?? null, to: groupId };
        await placeInLevel(tx, site.id, { kind: "link", entity: link }, groupId);
      }
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, siteExternalLinkUpdated, {
        organizationId: site.organizationId,
        actor: access.caller,
        payload: { siteId: site.id, linkId: link.id, changedFields: Object.keys(changes), changes },
      });
    }
    return externalLinkView(link, site);
  });
}
