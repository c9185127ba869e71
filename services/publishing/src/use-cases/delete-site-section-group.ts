import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { SiteSection } from "../domain/site-section.js";
import type { SiteSectionGroup } from "../domain/site-section-group.js";
import { recordPublishingEvent, siteSectionGroupDeleted } from "../events.js";
import type { UseCaseDeps } from "../deps.js";
import { requireOrganization, type CallerInput } from "./shared/access.js";
import { findSectionGroup } from "./shared/section-groups.js";
import { findSite } from "./shared/sites.js";
import { renumber, topLevelItems } from "./shared/top-level.js";

export interface DeleteSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
}

/**
 * Removes a section group (organization admins only); its sections stay, back at the top level
 * where the group was, in their order. Done when it no longer exists. Records
 * `site_section_group.deleted`.
 */
export async function deleteSiteSectionGroup(em: EntityManager, input: DeleteSiteSectionGroupInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireOrganization(deps, input.caller, input.organizationId, "admin");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    let group: SiteSectionGroup;
    try {
      group = await findSectionGroup(tx, site, input.groupId);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    const members = await tx.find(SiteSection, { siteId: site.id, sectionGroupId: group.id }, { orderBy: { position: "asc", id: "asc" } });
    const top = (await topLevelItems(tx, site.id)).map((item) => item.entity);
    const at = top.findIndex((item) => item.id === group.id);
    top.splice(at, 1, ...members);
    for (const member of members) member.sectionGroupId = null;
    renumber(top);
    tx.remove(group);
    recordPublishingEvent(tx, deps, siteSectionGroupDeleted, { organizationId: site.organizationId, actor: access.caller, payload: { siteId: site.id, sectionGroupId: group.id } });
  });
}
