import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { siteSectionGroupMoved } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSectionGroup, sectionGroupViews, type SectionGroupView } from "../shared/section-groups.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

export interface MoveSiteSectionGroupInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  groupId: string;
  /** "" unless placing it before this sibling (a section, group or external link of its level). */
  before: string;
  /** "" unless placing it after this sibling. */
  after: string;
  fields?: { before: string; after: string };
}

/**
 * Moves a section group before or after a sibling (a section, group or external link of its level),
 * or to the end of its level (site admins only). Records `site_section_group.moved`.
 */
export async function moveSiteSectionGroup(em: EntityManager, input: MoveSiteSectionGroupInput, deps: UseCaseDeps): Promise<SectionGroupView> {
  if (input.before && input.after) throw AppError.invalidArgument("position: give either before or after, not both");
  const fields = input.fields ?? { before: "position.before.id", after: "position.after.id" };
  const field = input.before ? fields.before : fields.after;
  const reference = input.before || input.after;
  if (reference && reference === input.groupId) throw AppError.invalidArgument(`${field}: cannot be the group being moved`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, group } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSectionGroup(tx, found, input.groupId);
    const index = await placeInLevel(tx, found.id, { kind: "group", entity: target }, target.parentGroupId ?? null, {
      before: input.before,
      after: input.after,
      fields,
    });
    recordEvent(tx, siteSectionGroupMoved, {
      organizationId: found.organizationId,
      actor: access.caller,
      payload: { siteId: found.id, sectionGroupId: target.id, index },
    });
    return { site: found, group: target };
  });
  const [view] = await sectionGroupViews(em, views, access, site, [group]);
  return view!;
}
