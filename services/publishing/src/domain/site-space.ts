import { defineEntity, p } from "@mikro-orm/postgresql";
import { checkCondition, MAX_CONDITION_LENGTH } from "@imprint/document";
import { AppError } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const PATH_MAX = 100;

/**
 * A space published by a site, at a path unique among its siblings (in its section, or at the
 * site's root when the site has no sections), in their order (`position`). A site with site-spaces has exactly one
 * default: Site.defaultSiteSpaceId while its space is not deleted, else the first visible one.
 */
export const SiteSpaceSchema = defineEntity({
  name: "SiteSpace",
  tableName: "site_spaces",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    /** Its section; null at the root of a site without sections. */
    sectionId: p.uuid().nullable(),
    spaceId: p.uuid(),
    path: p.string().length(PATH_MAX),
    /** The visibility condition; empty when none. */
    condition: p.string().length(MAX_CONDITION_LENGTH).default(""),
    position: p.integer(),
    /** Its space is deleted (restorable): hidden from the site until content restores it. */
    spaceDeleted: p.boolean().default(false),
    /** Its override of the site's customization (a partial customization, see customization/) as JSON text; null for none. */
    customizationOverride: p.text().nullable(),
    customizationUpdatedAt: p.datetime().nullable(),
    /** A draft is not live: visitors do not see it until it is made live. */
    draft: p.boolean().default(false),
    createdAt: p.datetime(),
  },
  // Paths are unique per level (the site's root or a section): checked under the site's row lock
  // for a clear answer, and guaranteed by the database (the root's section is null, hence NULLS NOT DISTINCT).
  uniques: [
    {
      name: "site_spaces_level_path_unique",
      expression: 'create unique index "site_spaces_level_path_unique" on "site_spaces" ("site_id", "section_id", "path") nulls not distinct',
    },
  ],
  indexes: [
    { properties: ["siteId", "position", "id"], name: "site_spaces_site_position_index" },
    { properties: ["spaceId"], name: "site_spaces_space_index" },
  ],
});
export class SiteSpace extends SiteSpaceSchema.class {}
SiteSpaceSchema.setClass(SiteSpace);

/** A path: 1 to 100 characters, one URL segment (no '/', no whitespace). */
export function validatePath(path: string): string {
  const length = characterCount(path);
  if (length < 1) throw AppError.invalidArgument("path: must be at least 1 character");
  if (length > PATH_MAX) throw AppError.invalidArgument(`path: must be at most ${PATH_MAX} characters`);
  if (/[/\s?#]/.test(path)) throw AppError.invalidArgument("path: must be one URL segment (no '/', '?', '#' or whitespace)");
  return path;
}

/** A condition in GitBook's expression language, checked as the reader will evaluate it; "" is none. */
export function validateCondition(condition: string): string {
  const problem = checkCondition(condition);
  if (problem) throw AppError.invalidArgument(`condition: ${problem.message}`);
  return condition.trim() === "" ? "" : condition;
}

/** A path from a space's title: lowercase letters, digits and hyphens ("space" when nothing is left). */
export function pathFromTitle(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return slug === "" ? "space" : slug;
}
