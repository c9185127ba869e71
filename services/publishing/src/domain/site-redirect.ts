import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { validateLinkUrl } from "./site-external-link.js";
import { URL_MAX } from "./site.js";

export const SOURCE_MAX = 512;
/** Redirects a site holds at most, live and draft together (the reader keeps a site's live ones in memory). */
export const MAX_REDIRECTS_PER_SITE = 5_000;
/** Items one bulk upsert takes at most (GitBook's bound). */
export const MAX_BULK_REDIRECTS = 500;

/**
 * GitBook's source pattern: a path after the site's base, "/" then segments of unreserved
 * characters or percent escapes, optionally ending in "*" (every path it starts) or "/*" (every
 * path under it).
 */
export const SOURCE_PATTERN = /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;

export const DESTINATION_KINDS = ["site-section", "site-space", "site-page", "external"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** Where a redirect leads, as stored: the ids its kind needs, the others null. */
export interface RedirectDestination {
  kind: DestinationKind;
  siteSectionId: string | null;
  siteSpaceId: string | null;
  pageId: string | null;
  url: string | null;
}

/**
 * A path of a site the reader sends elsewhere rather than answering 404: live, or a draft kept
 * aside (one of each per source at most). `automatic` ones were recorded when a published page
 * moved; `pageMoveAt` is when that move was committed in content, so a late event about an older
 * move never points the source back at the page it left.
 */
export const SiteRedirectSchema = defineEntity({
  name: "SiteRedirect",
  tableName: "site_redirects",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    source: p.string().length(SOURCE_MAX),
    draft: p.boolean().default(false),
    permanent: p.boolean().default(false),
    captureWildcard: p.boolean().default(false),
    destinationKind: p.string().length(32),
    destinationSiteSectionId: p.uuid().nullable(),
    destinationSiteSpaceId: p.uuid().nullable(),
    destinationPageId: p.string().length(64).nullable(),
    destinationUrl: p.string().length(URL_MAX).nullable(),
    automatic: p.boolean().default(false),
    pageMoveAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime().nullable(),
    /** updatedAt, else createdAt: what "most recently updated first" sorts by. */
    lastChangedAt: p.datetime(),
  },
  uniques: [{ properties: ["siteId", "source", "draft"], name: "site_redirects_site_source_draft_unique" }],
  indexes: [
    { properties: ["siteId", "draft", "createdAt", "id"], name: "site_redirects_site_created_at_index" },
    { properties: ["siteId", "draft", "lastChangedAt", "id"], name: "site_redirects_site_last_changed_at_index" },
    { properties: ["destinationSiteSpaceId"], name: "site_redirects_destination_site_space_index" },
  ],
});
export class SiteRedirect extends SiteRedirectSchema.class {}
SiteRedirectSchema.setClass(SiteRedirect);

/** A source as GitBook's pattern allows it, at most 512 characters; refused naming `field`. */
export function validateSource(source: string, field = "source"): string {
  if (source.length > SOURCE_MAX) throw AppError.invalidArgument(`${field}: must be at most ${SOURCE_MAX} characters`);
  if (!SOURCE_PATTERN.test(source))
    throw AppError.invalidArgument(`${field}: must be a path starting with "/" (letters, digits, - . _ ~ + or percent escapes), optionally ending in * or /*`);
  return source;
}

/** A wildcard source covers every path it starts; the part before its `*` (or `/*`). */
export function wildcardPrefix(source: string): string | null {
  if (source.endsWith("/*")) return source.slice(0, -1);
  if (source.endsWith("*")) return source.slice(0, -1);
  return null;
}

/** What a destination names before its references are checked against the site. */
export interface DestinationInput {
  kind: string;
  siteSectionId: string;
  siteSpaceId: string;
  pageId: string;
  url: string;
}

/** The shape of a destination: its kind and the fields it needs; references are checked by the use case. */
export function validateDestinationShape(input: DestinationInput, field = "destination"): RedirectDestination {
  const empty = { siteSectionId: null, siteSpaceId: null, pageId: null, url: null };
  switch (input.kind) {
    case "site-section":
      if (!input.siteSectionId) throw AppError.invalidArgument(`${field}.siteSectionId: is required for a site-section destination`);
      return { ...empty, kind: "site-section", siteSectionId: input.siteSectionId };
    case "site-space":
      if (!input.siteSpaceId) throw AppError.invalidArgument(`${field}.siteSpaceId: is required for a site-space destination`);
      return { ...empty, kind: "site-space", siteSpaceId: input.siteSpaceId };
    case "site-page":
      if (!input.siteSpaceId) throw AppError.invalidArgument(`${field}.siteSpaceId: is required for a site-page destination`);
      if (!input.pageId || input.pageId.length > 64) throw AppError.invalidArgument(`${field}.pageId: is required for a site-page destination`);
      return { ...empty, kind: "site-page", siteSpaceId: input.siteSpaceId, pageId: input.pageId };
    case "external":
      try {
        return { ...empty, kind: "external", url: validateLinkUrl(input.url) };
      } catch (error) {
        if (error instanceof AppError) throw AppError.invalidArgument(`${field}.${error.message}`);
        throw error;
      }
    default:
      throw AppError.invalidArgument(`${field}.kind: must be one of ${[...DESTINATION_KINDS, "path"].join(", ")}`);
  }
}

export function destinationOf(redirect: SiteRedirect): RedirectDestination {
  return {
    kind: redirect.destinationKind as DestinationKind,
    siteSectionId: redirect.destinationSiteSectionId ?? null,
    siteSpaceId: redirect.destinationSiteSpaceId ?? null,
    pageId: redirect.destinationPageId ?? null,
    url: redirect.destinationUrl ?? null,
  };
}

export function setDestination(redirect: SiteRedirect, destination: RedirectDestination): void {
  redirect.destinationKind = destination.kind;
  redirect.destinationSiteSectionId = destination.siteSectionId;
  redirect.destinationSiteSpaceId = destination.siteSpaceId;
  redirect.destinationPageId = destination.pageId;
  redirect.destinationUrl = destination.url;
}

/** A destination as the REST API's events name it (for `changes`). */
export function describeDestination(destination: RedirectDestination): string {
  switch (destination.kind) {
    case "site-section":
      return `site-section:${destination.siteSectionId}`;
    case "site-space":
      return `site-space:${destination.siteSpaceId}`;
    case "site-page":
      return `site-page:${destination.siteSpaceId}/${destination.pageId}`;
    case "external":
      return `external:${destination.url}`;
  }
}
