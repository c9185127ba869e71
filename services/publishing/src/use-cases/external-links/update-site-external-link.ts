import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateLinkUrl } from "../../domain/site-external-link.js";
import { validateIcon, validateSectionDescription, validateSectionTitle } from "../../domain/site-section.js";
import { validateCondition } from "../../domain/site-space.js";
import { siteExternalLinkUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireOrganizationRole } from "../shared/access.js";
import { externalLinkView, findExternalLink, type ExternalLinkView } from "../shared/external-links.js";
import { parentGroup } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

export interface UpdateSiteExternalLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  linkId: string;
  title: string | undefined;
  url: string | undefined;
  /** "" removes it. */
  description: string | undefined;
  /** "" removes it. */
  icon: string | undefined;
  /** "" removes it. */
  condition: string | undefined;
  /** The group to move it into, at its end; "" moves it to the top level. */
  sectionGroupId: string | undefined;
  draft: boolean | undefined;
}

/** Changes an external link, or moves it to another group (organization admins only). Records `site_external_link.updated`. */
export async function updateSiteExternalLink(em: EntityManager, input: UpdateSiteExternalLinkInput, deps: UseCaseDeps): Promise<ExternalLinkView> {
  const fields = {
    title: input.title === undefined ? undefined : validateSectionTitle(input.title),
    url: input.url === undefined ? undefined : validateLinkUrl(input.url),
    description: input.description === undefined ? undefined : validateSectionDescription(input.description),
    icon: input.icon === undefined ? undefined : validateIcon(input.icon),
    condition: input.condition === undefined ? undefined : validateCondition(input.condition),
    draft: input.draft,
  };
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
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
    if (input.sectionGroupId !== undefined) {
      const groupId = (await parentGroup(tx, site, input.sectionGroupId, "parent"))?.id ?? null;
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
