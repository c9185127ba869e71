import { parseUpdateMask, recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateIcon } from "../../domain/site-section.js";
import { validateGroupTitle } from "../../domain/site-section-group.js";
import { siteSectionGroupUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSectionGroup, parentGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { checkGroupPlacement, placeInLevel } from "../shared/top-level.js";
import { findSite } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["title", "icon", "draft", "parent_group_id"] as const;

export interface UpdateSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  title: string;
  /** "" removes it. */
  icon: string;
  /** Draft (true) or live (false). */
  draft: boolean;
  /** The group to move it into, at its end; "" moves it to the top level. */
  parentGroupId: string;
}

/**
 * Renames a section group, changes its icon or draft state, or moves it into another group (at its
 * end; never into itself or a group it contains, nor deeper than groups nest) or to the top level:
 * what the mask names (none: the group as it is). Organization admins only. Records `site_section_group.updated`.
 */
export async function updateSiteSectionGroup(em: EntityManager, input: UpdateSiteSectionGroupInput, deps: UseCaseDeps): Promise<SectionGroupView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const title = fields.has("title") ? validateGroupTitle(input.title) : undefined;
  const icon = fields.has("icon") ? validateIcon(input.icon) : undefined;
  const draft = fields.has("draft") ? input.draft : undefined;
  const parentGroupId = fields.has("parent_group_id") ? input.parentGroupId : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
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
    if (draft !== undefined && draft !== target.draft) {
      changes.draft = { from: target.draft, to: draft };
      target.draft = draft;
    }
    if (parentGroupId !== undefined) {
      const parent = (await parentGroup(tx, found, parentGroupId, "parentSectionGroupId"))?.id ?? null;
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
