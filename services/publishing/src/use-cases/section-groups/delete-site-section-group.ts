import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import type { SiteSectionGroup } from "../../domain/site-section-group.js";
import { siteSectionGroupDeleted } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSectionGroup } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { levelItems, renumber, setParent } from "../shared/top-level.js";

export interface DeleteSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
}

/**
 * Removes a section group (site admins only); its children (sections, groups, links) stay,
 * where the group was in its level, in their order. Done when it no longer exists. Records
 * `site_section_group.deleted`.
 */
export async function deleteSiteSectionGroup(em: EntityManager, input: DeleteSiteSectionGroupInput, deps: UseCaseDeps): Promise<void> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  await deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    let group: SiteSectionGroup;
    try {
      group = await findSectionGroup(tx, site, input.groupId);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
    // Its children (sections, groups, links) take its place in its level, in their order.
    const parent = group.parentGroupId ?? null;
    const children = await levelItems(tx, site.id, group.id);
    const level = await levelItems(tx, site.id, parent);
    const at = level.findIndex((item) => item.entity.id === group.id);
    level.splice(at, 1, ...children);
    for (const child of children) setParent(child, parent);
    renumber(level.map((item) => item.entity));
    tx.remove(group);
    recordEvent(tx, siteSectionGroupDeleted, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, sectionGroupId: group.id },
    });
  });
}
