import { recordEvent } from "@imprint/runtime";
import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { SiteExternalLink, validateLinkUrl } from "../../domain/site-external-link.js";
import { validateIcon, validateSectionDescription, validateSectionTitle } from "../../domain/site-section.js";
import { validateCondition } from "../../domain/site-space.js";
import { siteExternalLinkCreated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { externalLinkView, requireSections, type ExternalLinkView } from "../shared/external-links.js";
import { parentGroup } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { nextLevelPosition } from "../shared/top-level.js";

export interface AddSiteExternalLinkInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  title: string;
  url: string;
  description: string;
  /** "" for none. */
  icon: string;
  /** "" for none. */
  condition: string;
  /** The group to put it in; "" for the top level. */
  sectionGroupId: string;
  draft: boolean;
}

/**
 * Adds an external link at the end of the top level or of a group of a site with sections
 * (site admins only). Records `site_external_link.created`.
 */
export async function addSiteExternalLink(em: EntityManager, input: AddSiteExternalLinkInput, deps: UseCaseDeps): Promise<ExternalLinkView> {
  const title = validateSectionTitle(input.title);
  const url = validateLinkUrl(input.url);
  const description = validateSectionDescription(input.description);
  const icon = validateIcon(input.icon);
  const condition = validateCondition(input.condition);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    await requireSections(tx, site);
    const groupId = (await parentGroup(tx, site, input.sectionGroupId, "parent"))?.id ?? null;
    const link = tx.create(SiteExternalLink, {
      id: randomUUID(),
      siteId: site.id,
      organizationId: site.organizationId,
      title,
      description,
      icon,
      url,
      condition,
      sectionGroupId: groupId,
      position: await nextLevelPosition(tx, site.id, groupId),
      draft: input.draft,
      createdAt: deps.clock(),
    });
    recordEvent(tx, siteExternalLinkCreated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, linkId: link.id, title, url, sectionGroupId: groupId ?? "" },
    });
    return externalLinkView(link, site);
  });
}
