import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { SiteSection } from "../../domain/site-section.js";
import { siteSectionGroupUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSectionGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { findSiteSection } from "../shared/sections.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

export interface SetSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
  sectionId: string;
  /** True puts the section at the end of the group; false takes it out, to the end of the top level. */
  member: boolean;
}

/**
 * Puts a section in a group (at its end; from the top level or another group) or takes it out of
 * the group (to the end of the top level; nothing happens when it is not in it). Organization
 * admins only. Records `site_section_group.updated` (`sections`) when something changed.
 */
export async function setSectionGroup(em: EntityManager, input: SetSectionGroupInput, deps: UseCaseDeps): Promise<SectionGroupView | null> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, group } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSectionGroup(tx, found, input.groupId);
    let section: SiteSection;
    try {
      section = await findSiteSection(tx, found, input.sectionId);
    } catch (error) {
      if (!input.member && error instanceof AppError && error.code === "not_found") return { site: found, group: target };
      if (error instanceof AppError && error.code === "not_found") throw AppError.invalidArgument(`sectionId: no section ${input.sectionId} in this site`);
      throw error;
    }
    const inGroup = section.sectionGroupId === target.id;
    if (input.member === inGroup) return { site: found, group: target };
    await placeInLevel(tx, found.id, { kind: "section", entity: section }, input.member ? target.id : null);
    recordEvent(tx, siteSectionGroupUpdated, {
      organizationId: found.organizationId,
      actor: access.caller,
      payload: {
        siteId: found.id,
        sectionGroupId: target.id,
        changedFields: ["sections"],
        changes: { sections: { from: input.member ? null : section.id, to: input.member ? section.id : null } },
      },
    });
    return { site: found, group: target };
  });
  const [view] = await sectionGroupViews(em, views, access, site, [group]);
  return view ?? null;
}
