import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { SiteSection, validateIcon } from "../../domain/site-section.js";
import { SiteSectionGroup, validateGroupTitle } from "../../domain/site-section-group.js";
import { siteSectionGroupCreated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { isId, type CallerInput, requireSiteCaller } from "../shared/access.js";
import { parentGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { checkGroupPlacement, nextLevelPosition, placeInLevel } from "../shared/top-level.js";

export interface AddSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  title: string;
  /** "" for none. */
  icon: string;
  /** Sections of the site to put in it, in order (taken out of the top level or another group). */
  sectionIds: string[];
  /** The group to nest it in; "" for the top level. */
  parentGroupId?: string;
  /** Created as a draft (not live). */
  draft?: boolean;
}

/**
 * Adds a section group at the end of the site's top level or of a parent group (at most
 * GROUP_DEPTH_MAX deep), holding the given sections in the given order (site admins only).
 * Records `site_section_group.created`.
 */
export async function addSiteSectionGroup(em: EntityManager, input: AddSiteSectionGroupInput, deps: UseCaseDeps): Promise<SectionGroupView> {
  const title = validateGroupTitle(input.title);
  const icon = validateIcon(input.icon);
  if (new Set(input.sectionIds).size !== input.sectionIds.length) throw AppError.invalidArgument("sections: must not name a section twice");
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, group } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const sections: SiteSection[] = [];
    for (const [index, id] of input.sectionIds.entries()) {
      const section = isId(id) ? await tx.findOne(SiteSection, { id, siteId: found.id }) : null;
      if (!section) throw AppError.invalidArgument(`sections[${index}]: no section ${id} in this site`);
      sections.push(section);
    }
    const parent = (await parentGroup(tx, found, input.parentGroupId ?? "", "parent"))?.id ?? null;
    await checkGroupPlacement(tx, found.id, null, parent, "parent");
    const created = tx.create(SiteSectionGroup, {
      id: randomUUID(),
      siteId: found.id,
      organizationId: found.organizationId,
      title,
      icon,
      position: await nextLevelPosition(tx, found.id, parent),
      parentGroupId: parent,
      draft: input.draft ?? false,
      createdAt: deps.clock(),
    });
    await tx.flush();
    for (const section of sections) await placeInLevel(tx, found.id, { kind: "section", entity: section }, created.id);
    recordEvent(tx, siteSectionGroupCreated, {
      organizationId: found.organizationId,
      actor: access.caller,
      payload: { siteId: found.id, sectionGroupId: created.id, title, sectionIds: sections.map((section) => section.id) },
    });
    return { site: found, group: created };
  });
  const [view] = await sectionGroupViews(em, views, access, site, [group]);
  return view!;
}
