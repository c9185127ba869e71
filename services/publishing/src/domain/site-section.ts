import { defineEntity, p } from "@mikro-orm/postgresql";
import { MAX_CONDITION_LENGTH } from "@imprint/document";
import { AppError } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const SECTION_TITLE_MIN = 2;
export const SECTION_TITLE_MAX = 128;
export const SECTION_DESCRIPTION_MAX = 256;
export const ICON_MAX = 50;

/**
 * A section of a site: a titled part at its own path (unique in the site), in the site's order,
 * holding site-spaces (its variants, one the section's default). A site with sections has exactly
 * one default section (Site.defaultSectionId) and no site-spaces outside sections.
 */
export const SiteSectionSchema = defineEntity({
  name: "SiteSection",
  tableName: "site_sections",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    title: p.string().length(SECTION_TITLE_MAX),
    path: p.string().length(100),
    description: p.string().length(SECTION_DESCRIPTION_MAX).default(""),
    icon: p.string().length(ICON_MAX).nullable(),
    /** The visibility condition; empty when none. */
    condition: p.string().length(MAX_CONDITION_LENGTH).default(""),
    /** Its position among its siblings (sections, groups and external links of its level: the top level or its group). */
    position: p.integer(),
    /** Its group; null at the top level. */
    sectionGroupId: p.uuid().nullable(),
    /** Its default site-space (null while it has none). */
    defaultSiteSpaceId: p.uuid().nullable(),
    /** A draft is not live: visitors do not see it (nor anything in it) until it is made live. */
    draft: p.boolean().default(false),
    createdAt: p.datetime(),
  },
  uniques: [{ properties: ["siteId", "path"], name: "site_sections_site_path_unique" }],
  indexes: [{ properties: ["siteId", "position", "id"], name: "site_sections_site_position_index" }],
});
export class SiteSection extends SiteSectionSchema.class {}
SiteSectionSchema.setClass(SiteSection);

export function validateSectionTitle(title: string): string {
  const length = characterCount(title);
  if (length < SECTION_TITLE_MIN) throw AppError.invalidArgument(`title: must be at least ${SECTION_TITLE_MIN} characters`);
  if (length > SECTION_TITLE_MAX) throw AppError.invalidArgument(`title: must be at most ${SECTION_TITLE_MAX} characters`);
  return title;
}

export function validateSectionDescription(description: string): string {
  if (characterCount(description) > SECTION_DESCRIPTION_MAX)
    throw AppError.invalidArgument(`description: must be at most ${SECTION_DESCRIPTION_MAX} characters`);
  return description;
}

/** An icon name (at most 50 characters); "" removes it. */
export function validateIcon(icon: string): string | null {
  if (characterCount(icon) > ICON_MAX) throw AppError.invalidArgument(`icon: must be at most ${ICON_MAX} characters`);
  return icon === "" ? null : icon;
}

/** A title for a section made from a space's title: clipped to 128 characters, "Section" when too short. */
export function sectionTitleFrom(title: string): string {
  const clipped = [...title].slice(0, SECTION_TITLE_MAX).join("");
  return characterCount(clipped.trim()) >= SECTION_TITLE_MIN ? clipped : "Section";
}
