import type { ReaderRedirect } from "@imprint/proto/publishing/v1/reader";
import type { ReaderData } from "./data.js";
import { placedSiteSpaces, readingOrder, visibleSections } from "./site.js";
import type { Visit } from "./visit.js";

/**
 * A site's redirects, followed where a path has no page (never in front of one): a path's own
 * redirect, else the wildcard source with the longest prefix covering it. Sources are compared
 * decoded, as the visit's segments are.
 */

/** Where a followed redirect sends the visitor, and with which status. */
export interface FollowedRedirect {
  status: 307 | 308;
  url: string;
}

interface RedirectIndex {
  exact: Map<string, ReaderRedirect>;
  /** Wildcard sources by their decoded prefix, longest first. */
  wildcards: { prefix: string; underSlash: boolean; redirect: ReaderRedirect }[];
}

const indexes = new WeakMap<readonly ReaderRedirect[], RedirectIndex>();

function decoded(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

/** The redirects indexed once per list the reader keeps (a new list after each change of the site's). */
function indexOf(redirects: readonly ReaderRedirect[]): RedirectIndex {
  let index = indexes.get(redirects);
  if (index) return index;
  index = { exact: new Map(), wildcards: [] };
  for (const redirect of redirects) {
    const source = decoded(redirect.source);
    if (source === null) continue;
    if (source.endsWith("*")) index.wildcards.push({ prefix: source.slice(0, -1), underSlash: source.endsWith("/*"), redirect });
    else index.exact.set(source, redirect);
  }
  index.wildcards.sort((a, b) => b.prefix.length - a.prefix.length);
  indexes.set(redirects, index);
  return index;
}

const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/** The redirect the visit's path follows and its target, the request's query string kept; null when none leads anywhere the visitor may go. */
export async function followRedirect(visit: Visit, data: ReaderData, querystring: string): Promise<FollowedRedirect | null> {
  const redirects = await data.redirects(visit.site.siteId);
  if (redirects.length === 0) return null;
  const path = `/${visit.segments.join("/")}`;
  const index = indexOf(redirects);
  let redirect = index.exact.get(path);
  let captured = "";
  if (!redirect) {
    const wildcard = index.wildcards.find((candidate) => path.startsWith(candidate.prefix) && path.length > candidate.prefix.length);
    if (!wildcard) return null;
    redirect = wildcard.redirect;
    if (redirect.captureWildcard) captured = encodePath(path.slice(wildcard.prefix.length));
    if (captured && wildcard.underSlash) captured = `/${captured}`;
  }
  const target = await targetOf(visit, data, redirect);
  if (target === null) return null;
  const withCaptured = captured ? (captured.startsWith("/") ? `${target.replace(/\/+$/, "")}${captured}` : `${target}${captured}`) : target;
  const url = querystring ? `${withCaptured}${withCaptured.includes("?") ? "&" : "?"}${querystring}` : withCaptured;
  return { status: redirect.permanent ? 308 : 307, url };
}

/** The URL a redirect's destination has for this visitor; null when they cannot see it (a hidden section, a page gone). */
async function targetOf(visit: Visit, data: ReaderData, redirect: ReaderRedirect): Promise<string | null> {
  switch (redirect.kind) {
    case "external":
      return redirect.url || null;
    case "site-section": {
      const section = visibleSections(visit.site, visit.context).find((candidate) => candidate.id === redirect.siteSectionId);
      if (!section) return null;
      return section.default ? visit.base : `${visit.base}${encodeURIComponent(section.path)}/`;
    }
    case "site-space":
    case "site-page": {
      const placed = placedSiteSpaces(visit.site, visit.context, visit.base).find((candidate) => candidate.siteSpace.id === redirect.siteSpaceId);
      if (!placed) return null;
      if (redirect.kind === "site-space") return placed.prefix;
      const space = await data.space(placed.siteSpace.spaceId);
      const page = space && readingOrder(space.pages).find((candidate) => candidate.id === redirect.pageId);
      return page ? `${placed.prefix}${encodePath(page.path)}` : null;
    }
    default:
      return null;
  }
}
