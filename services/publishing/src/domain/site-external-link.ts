import { defineEntity, p } from "@mikro-orm/postgresql";
import { MAX_CONDITION_LENGTH } from "@imprint/document";
import { AppError } from "@imprint/runtime";
import { ICON_MAX, SECTION_DESCRIPTION_MAX, SECTION_TITLE_MAX } from "./site-section.js";
import { URL_MAX } from "./site.js";

/**
 * A link to somewhere else in a site's navigation (GitBook's SiteExternalLink): a title, an
 * absolute http(s) URL, at the top level of a site with sections or in a group, ordered with the
 * sections and groups of its level.
 */
export const SiteExternalLinkSchema = defineEntity({
  name: "SiteExternalLink",
  tableName: "site_external_links",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    title: p.string().length(SECTION_TITLE_MAX),
    description: p.string().length(SECTION_DESCRIPTION_MAX).default(""),
    icon: p.string().length(ICON_MAX).nullable(),
    url: p.string().length(URL_MAX),
    /** The visibility condition; empty when none. */
    condition: p.string().length(MAX_CONDITION_LENGTH).default(""),
    /** Its group; null at the top level. */
    sectionGroupId: p.uuid().nullable(),
    position: p.integer(),
    /** A draft is not live: visitors do not see it until it is made live. */
    draft: p.boolean().default(false),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["siteId", "position", "id"], name: "site_external_links_site_position_index" }],
});
export class SiteExternalLink extends SiteExternalLinkSchema.class {}
SiteExternalLinkSchema.setClass(SiteExternalLink);

/** An external link's destination: an absolute http(s) URL of at most 2,048 characters. */
export function validateLinkUrl(url: string): string {
  if (url.length > URL_MAX) throw AppError.invalidArgument(`url: must be at most ${URL_MAX} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw AppError.invalidArgument("url: must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw AppError.invalidArgument("url: must be an absolute http(s) URL");
  return url;
}
