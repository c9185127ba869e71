import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { siteSectionMoved } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSiteSection, sectionViews, type SectionView } from "../shared/sections.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

export interface MoveSiteSectionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  sectionId: string;
  /** "" unless placing it before this section. */
  before: string;
  /** "" unless placing it after this section. */
  after: string;
  /** How errors name the before and after fields (those of moveSiteSection by default). */
  fields?: { before: string; after: string };
}

/**
 * Moves a section before or after a sibling (a section, group or external link of its level: its
 * group, or the top level), or to the end of its level when neither is given
 * (site admins only). Positions are renumbered 0, 1, 2, … Records `site_section.moved`.
 */
export async function moveSiteSection(em: EntityManager, input: MoveSiteSectionInput, deps: UseCaseDeps): Promise<SectionView> {
  if (input.before && input.after) throw AppError.invalidArgument("position: give either before or after, not both");
  const fields = input.fields ?? { before: "position.before.siteSection", after: "position.after.siteSection" };
  const field = input.before ? fields.before : fields.after;
  const reference = input.before || input.after;
  if (reference && reference === input.sectionId) throw AppError.invalidArgument(`${field}: cannot be the section being moved`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, moved } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSiteSection(tx, found, input.sectionId);
    // Its siblings: the other items of its level (its group's children, or the top level).
    const index = await placeInLevel(tx, found.id, { kind: "section", entity: target }, target.sectionGroupId ?? null, {
      before: input.before,
      after: input.after,
      fields,
    });
    recordEvent(tx, siteSectionMoved, {
      organizationId: found.organizationId,
      actor: access.caller,
      payload: { siteId: found.id, sectionId: target.id, index },
    });
    return { site: found, moved: target };
  });
  const [view] = await sectionViews(em, views, access, site, [moved]);
  return view!;
}
