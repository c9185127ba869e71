import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { SiteSection, validateIcon, validateSectionDescription, validateSectionTitle } from "../../domain/site-section.js";
import { SiteSpace, validateCondition, validatePath } from "../../domain/site-space.js";
import { siteSectionUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { readSpacesOfSite } from "../shared/site-spaces.js";
import { isId, type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSiteSection, sectionViews, type SectionView } from "../shared/sections.js";
import { findSite } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["title", "path", "description", "icon", "condition", "default_site_space_id", "draft"] as const;

export interface UpdateSiteSectionInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  sectionId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  title: string;
  path: string;
  /** "" removes it. */
  description: string;
  /** "" removes it. */
  icon: string;
  /** "" removes it. */
  condition: string;
  /** Draft (true) or live (false). */
  draft: boolean;
  defaultSiteSpaceId: string;
}

/**
 * Changes a section's title, path (unique among the site's sections), description, icon, condition,
 * draft state or default site-space (one of its own, visible): the fields the mask names (none: the
 * section as it is). Organization admins only. Records `site_section.updated` with what changed.
 */
export async function updateSiteSection(em: EntityManager, input: UpdateSiteSectionInput, deps: UseCaseDeps): Promise<SectionView> {
  const masked = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const fields: Partial<Record<"title" | "path" | "description" | "icon" | "condition", string | null>> = {};
  if (masked.has("title")) fields.title = validateSectionTitle(input.title);
  if (masked.has("path")) fields.path = validatePath(input.path);
  if (masked.has("description")) fields.description = validateSectionDescription(input.description);
  if (masked.has("icon")) fields.icon = validateIcon(input.icon);
  if (masked.has("condition")) fields.condition = validateCondition(input.condition);
  const draft = masked.has("draft") ? input.draft : undefined;
  const defaultSiteSpaceId = masked.has("default_site_space_id") ? input.defaultSiteSpaceId : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, section } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSiteSection(tx, found, input.sectionId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (
      fields.path !== undefined &&
      fields.path !== target.path &&
      (await tx.count(SiteSection, { siteId: found.id, path: fields.path, id: { $ne: target.id } }))
    ) {
      throw AppError.invalidArgument(`path: "${fields.path}" is already used by another section of this site`);
    }
    const self = target as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(fields)) {
      if (value === self[key]) continue;
      changes[key] = { from: self[key] === "" ? null : (self[key] ?? null), to: value === "" ? null : value };
      self[key] = value;
    }
    if (draft !== undefined && draft !== target.draft) {
      changes.draft = { from: target.draft, to: draft };
      target.draft = draft;
    }
    if (defaultSiteSpaceId !== undefined && defaultSiteSpaceId !== target.defaultSiteSpaceId) {
      const siteSpace = isId(defaultSiteSpaceId) ? await tx.findOne(SiteSpace, { id: defaultSiteSpaceId, sectionId: target.id, spaceDeleted: false }) : null;
      if (!siteSpace) throw AppError.invalidArgument(`defaultSiteSpace: no site-space ${defaultSiteSpaceId} in this section`);
      changes.defaultSiteSpace = { from: target.defaultSiteSpaceId, to: siteSpace.id };
      target.defaultSiteSpaceId = siteSpace.id;
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, siteSectionUpdated, {
        organizationId: found.organizationId,
        actor: access.caller,
        payload: { siteId: found.id, sectionId: target.id, changedFields: Object.keys(changes), changes },
      });
    }
    return { site: found, section: target };
  });
  const [view] = await sectionViews(em, views, access, site, [section]);
  return view!;
}
