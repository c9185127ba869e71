import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateIcon } from "../../domain/site-section.js";
import { validateGroupTitle } from "../../domain/site-section-group.js";
import { siteSectionGroupUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { type CallerInput, requireOrganizationRole } from "../shared/access.js";
import { findSectionGroup, parentGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { checkGroupPlacement, placeInLevel } from "../shared/top-level.js";
import { findSite } from "../shared/sites.js";

export interface UpdateSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
  title: string | undefined;
  /** "" removes it. */
  icon: string | undefined;
  /** Draft (true) or live (false). */
  draft?: boolean | undefined;
  /** The group to move it into, at its end; "" moves it to the top level. */
  parentGroupId?: string | undefined;
}

/**
 * Renames a section group, changes its icon or draft state, or moves it into another group (at its
 * end; never into itself or a group it contains, nor deeper than groups nest) or to the top level.
 * Organization admins only. Records `site_section_group.updated`.
 */
export async function updateSiteSectionGroup(em: EntityManager, input: UpdateSiteSectionGroupInput, deps: UseCaseDeps): Promise<SectionGroupView> {
  const title = input.title === undefined ? undefined : validateGroupTitle(input.title);
  const icon = input.icon === undefined ? undefined : validateIcon(input.icon);
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, group } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSectionGroup(tx, found, input.groupId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (title !== undefined && title !== target.title) {
      changes.title = { from: target.title, to: title };
      target.title = title;
    }
    if (icon !== undefined && icon !== (target.icon ?? null)) {
      changes.icon = { from: target.icon ?? null, to: icon };
      target.icon = icon;
    }
    if (input.draft !== undefined && input.draft !== target.draft) {
      changes.draft = { from: target.draft, to: input.draft };
      target.draft = input.draft;
    }
    if (input.parentGroupId !== undefined) {
      const parent = (await parentGroup(tx, found, input.parentGroupId, "parentSectionGroupId"))?.id ?? null;
      if (parent !== (target.parentGroupId ?? null)) {
        await checkGroupPlacement(tx, found.id, target.id, parent, "parentSectionGroupId");
        changes.parentSectionGroupId = { from: target.parentGroupId ?? null, to: parent };
        await placeInLevel(tx, found.id, { kind: "group", entity: target }, parent);
      }
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, siteSectionGroupUpdated, {
        organizationId: found.organizationId,
        actor: access.caller,
        payload: { siteId: found.id, sectionGroupId: target.id, changedFields: Object.keys(changes), changes },
      });
    }
    return { site: found, group: target };
  });
  const [view] = await sectionGroupViews(em, views, access, site, [group]);
  return view!;
}
