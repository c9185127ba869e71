import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { ICON_MAX } from "./site-section.js";
import { characterCount } from "./text.js";

export const GROUP_TITLE_MAX = 100;

/**
 * A group of sections at the top level of a site's structure: a title (1–100) and an optional
 * icon. Groups and the sections outside groups share the top level's order (`position`); the
 * sections of a group have their own. Groups do not nest (yet).
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
