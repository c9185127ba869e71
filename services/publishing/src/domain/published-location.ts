import { jwtVerify } from "jose";

/**
 * Where a published URL's path leads on a site, by the reader's rule (services/reader/src/site.ts,
 * `locate`; the same rule, kept here because services share no code): after the site's base (and
 * its share key), the section's path (sites with sections; the default section when the segment
 * names none), the site-space's path (the level's default when the segment names none; a URL may also name the default by its path), then the
 * page's path. Conditions are not evaluated: the caller is someone who sees the site's whole live
 * structure.
 */

/** A live site-space as the location rule sees it. */
export interface LocatedSiteSpace {
  id: string;
  spaceId: string;
  path: string;
  isDefault: boolean;
}

/** A live section with its live site-spaces. */
export interface LocatedSection {
  id: string;
  path: string;
  isDefault: boolean;
  siteSpaces: LocatedSiteSpace[];
}

export interface PublishedLocation {
  section: LocatedSection | null;
  siteSpace: LocatedSiteSpace;
  /** The page path inside the space ("" for its first page). */
  pagePath: string;
  /** Path segments from the site's base to the site-space's pages as the reader addresses them (section and site-space paths, as needed). */
  levelSegments: string[];
  /** The same as the URL named them (a default site-space's path included when the URL gave it). */
  urlSegments: string[];
  /** Whether no further section or site-space path could follow before the page path. */
  complete: boolean;
}

/** The level's default: the one marked, else its first. */
function defaultOf<T extends { isDefault: boolean }>(items: T[]): T | undefined {
  return items.find((item) => item.isDefault) ?? items[0];
}

/**
 * Where `segments` (after the site's base and share key) lead: `sections` for a site with
 * sections (those with a live site-space), else `siteSpaces`. Null when nowhere.
 */
export function locatePublished(structure: { sections: LocatedSection[]; siteSpaces: LocatedSiteSpace[] }, segments: string[]): PublishedLocation | null {
  let rest = [...segments];
  const levelSegments: string[] = [];
  let section: LocatedSection | null = null;
  let siteSpaces = structure.siteSpaces;
  // Whether a segment at the site level could still name something (a section's path, or a site-space's).
  let open = false;
  if (structure.sections.length > 0) {
    const sections = structure.sections.filter((candidate) => candidate.siteSpaces.length > 0);
    const named = sections.find((candidate) => candidate.path === rest[0]);
    section = named ?? defaultOf(sections) ?? null;
    if (!section) return null;
    if (named) rest = rest.slice(1);
    if (!section.isDefault || named) levelSegments.push(section.path);
    open = !named && sections.length > 1;
    siteSpaces = section.siteSpaces;
  }
  const namedSpace = siteSpaces.find((candidate) => candidate.path === rest[0] && !candidate.isDefault);
  // The API's urls.published of a default site-space names its path too (the reader reads the
  // default at its level's address): a URL naming it resolves to it, canonically without it.
  const namedDefault = namedSpace ? undefined : siteSpaces.find((candidate) => candidate.path === rest[0] && candidate.isDefault);
  const siteSpace = namedSpace ?? namedDefault ?? defaultOf(siteSpaces);
  if (!siteSpace) return null;
  const urlSegments = [...levelSegments];
  if (namedSpace) {
    rest = rest.slice(1);
    levelSegments.push(namedSpace.path);
    urlSegments.push(namedSpace.path);
  } else if (namedDefault) {
    rest = rest.slice(1);
    urlSegments.push(namedDefault.path);
  } else if (siteSpaces.length > 1) open = true;
  const pagePath = rest.join("/");
  return { section, siteSpace, pagePath, levelSegments, urlSegments, complete: pagePath !== "" || !open };
}

/** Whether a visitor JWT was signed with the site's visitor-auth key (HS256) and is still valid, as the reader checks it. */
export async function siteVisitorTokenValid(key: string, token: string, now: Date): Promise<boolean> {
  if (!key || !token) return false;
  try {
    await jwtVerify(token, new TextEncoder().encode(key), { algorithms: ["HS256"], requiredClaims: ["exp"], currentDate: now });
    return true;
  } catch {
    return false;
  }
}
