import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { locatePublished, siteVisitorTokenValid, type LocatedSection, type LocatedSiteSpace } from "../../domain/published-location.js";
import type { UseCaseDeps } from "../../deps.js";
import { checkShareKey, getReaderSite, type ReaderItemView, type ReaderSiteSpaceView } from "../reader/get-reader-site.js";
import { verifyMemberVisitorToken } from "../member-visitor-tokens/verify-member-visitor-token.js";
import { organizationLevel, requireSiteCaller, requireSiteLevel, type CallerInput } from "../shared/access.js";

export interface ResolvePublishedUrlInput {
  caller: CallerInput | undefined;
  url: string;
  /** The reader's public URL (sites without a custom hostname are read under it). */
  readerUrl: string;
  /** A visitor-auth site's visitor token ("" for none). */
  visitorAuthToken: string;
}

export interface PublishedUrlResolution {
  organizationId: string;
  siteId: string;
  siteSectionId: string;
  siteSpaceId: string;
  spaceId: string;
  pathname: string;
  basePath: string;
  siteBasePath: string;
  complete: boolean;
  canonicalUrl: string;
  shareKey: string;
}

/** The one answer for every URL that names nothing the caller may read (which is not told apart). */
const noContent = () => new AppError("not_found", "No published content found for the URL");

/** A refusal that must not tell the URL's site apart from no site at all. */
const refusal = (error: unknown) => error instanceof AppError && (error.code === "not_found" || error.code === "permission_denied");

function absoluteUrl(field: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalidArgument(`${field}: must be an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw AppError.invalidArgument(`${field}: must be an http or https URL`);
  return url;
}

/** The path's segments, decoded; null when one does not decode. */
function segmentsOf(pathname: string): string[] | null {
  try {
    return pathname
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

const located = (view: ReaderSiteSpaceView): LocatedSiteSpace => ({
  id: view.siteSpace.id,
  spaceId: view.siteSpace.spaceId,
  path: view.siteSpace.path,
  isDefault: view.isDefault,
});

/** The live sections in structure order, groups flattened. */
function sectionsOf(items: ReaderItemView[]): LocatedSection[] {
  return items.flatMap((item): LocatedSection[] => {
    if (item.kind === "section") return [{ id: item.section.id, path: item.section.path, isDefault: item.isDefault, siteSpaces: item.siteSpaces.map(located) }];
    if (item.kind === "group") return sectionsOf(item.children);
    return [];
  });
}

const pathOf = (segments: string[]) => segments.map((segment) => `${encodeURIComponent(segment)}/`).join("");

/**
 * A published URL back to what it shows (GitBook's getPublishedContentByUrl), as the reader would
 * read it: the published site by the URL's custom hostname, else by `<organization>/<basename or
 * id>/` under the reader's URL; its share key; then the section, the site-space and the page path.
 * Only for a caller who sees the site; on a visitor-auth site a guest (whom the reader does not
 * admit as a member) needs a valid visitor token too. Anything else is one not_found.
 */
export async function resolvePublishedUrl(em: EntityManager, input: ResolvePublishedUrlInput, deps: UseCaseDeps): Promise<PublishedUrlResolution> {
  const url = absoluteUrl("url", input.url);
  const reader = absoluteUrl("reader_url", input.readerUrl);
  const readerPath = reader.pathname.replace(/\/+$/, "");
  let segments = segmentsOf(url.pathname);
  if (!segments) throw noContent();

  const byPath = url.host === reader.host;
  let lookup: { hostname: string; organizationId: string; site: string };
  let siteBase: string;
  if (byPath) {
    const prefix = readerPath.split("/").filter(Boolean);
    if (prefix.some((part, index) => segments![index] !== part)) throw noContent();
    segments = segments.slice(prefix.length);
    const [organizationId = "", site = ""] = segments;
    if (!organizationId || !site) throw noContent();
    lookup = { hostname: "", organizationId, site };
    siteBase = `${readerPath}/${pathOf([organizationId, site])}`;
    segments = segments.slice(2);
  } else {
    lookup = { hostname: url.hostname.toLowerCase(), organizationId: "", site: "" };
    siteBase = "/";
  }
  const view = await getReaderSite(em, lookup).catch((error: unknown) => {
    throw refusal(error) ? noContent() : error;
  });
  const { site } = view;

  try {
    const access = await requireSiteCaller(deps, input.caller, site.organizationId, "member");
    await requireSiteLevel(em, access, site.id);
    if (site.visibility === "visitor-auth" && organizationLevel(access) === null) {
      const token = input.visitorAuthToken;
      const valid =
        (await siteVisitorTokenValid(site.visitorAuthKey, token, deps.clock())) ||
        (await verifyMemberVisitorToken(em, { organizationId: site.organizationId, token }, deps)) !== null;
      if (!valid) throw noContent();
    }
  } catch (error) {
    throw refusal(error) ? noContent() : error;
  }

  let shareKey = "";
  if (site.visibility === "share-link") {
    shareKey = segments[0] ?? "";
    if (!(await checkShareKey(em, { siteId: site.id, key: shareKey }))) throw noContent();
    siteBase = `${siteBase}${pathOf([shareKey])}`;
    segments = segments.slice(1);
  }

  const location = locatePublished({ sections: sectionsOf(view.items), siteSpaces: view.siteSpaces.map(located) }, segments);
  if (!location) throw noContent();
  const basePath = `${siteBase}${pathOf(location.urlSegments)}`;
  // Canonical: the site's own address (its custom hostname, else its basename under the reader).
  const canonicalSite = site.hostname
    ? `https://${site.hostname}/`
    : `${reader.origin}${readerPath}/${pathOf([site.organizationId, site.basename || site.id])}`;
  const pagePath = location.pagePath.split("/").filter(Boolean).map(encodeURIComponent).join("/");
  return {
    organizationId: site.organizationId,
    siteId: site.id,
    siteSectionId: location.section?.id ?? "",
    siteSpaceId: location.siteSpace.id,
    spaceId: location.siteSpace.spaceId,
    pathname: location.pagePath,
    basePath,
    siteBasePath: siteBase,
    complete: location.complete,
    canonicalUrl: `${canonicalSite}${shareKey ? pathOf([shareKey]) : ""}${pathOf(location.levelSegments)}${pagePath}`,
    shareKey,
  };
}
