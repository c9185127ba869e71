import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { ICON_MAX } from "./site-section.js";
import { characterCount } from "./text.js";

export const GROUP_TITLE_MAX = 100;

/** Groups nest at most this deep (a top-level group is at depth 1). */
export const GROUP_DEPTH_MAX = 4;

/**
 * A group in a site's structure: a title (1–100) and an optional icon, at the top level or in
 * another group (`parentGroupId`, at most 4 deep). Each level (the top level, or a group's
 * children) orders its sections, groups and external links together (`position`).
 */
export const SiteSectionGroupSchema = defineEntity({
  name: "SiteSectionGroup",
  tableName: "site_section_groups",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    title: p.string().length(GROUP_TITLE_MAX),
    icon: p.string().length(ICON_MAX).nullable(),
    position: p.integer(),
    /** The group it is in; null at the top level. */
    parentGroupId: p.uuid().nullable(),
    /** A draft is not live: visitors do not see it (nor anything in it) until it is made live. */
    draft: p.boolean().default(false),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["siteId", "position", "id"], name: "site_section_groups_site_position_index" }],
});
export class SiteSectionGroup extends SiteSectionGroupSchema.class {}
SiteSectionGroupSchema.setClass(SiteSectionGroup);

export function validateGroupTitle(title: string): string {
  const length = characterCount(title);
  if (length < 1) throw AppError.invalidArgument("title: must be at least 1 character");
  if (length > GROUP_TITLE_MAX) throw AppError.invalidArgument(`title: must be at most ${GROUP_TITLE_MAX} characters`);
  return title;
}
