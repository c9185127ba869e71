import type {
  SiteAddress,
  SiteCustomization,
  SiteExternalLink,
  SiteSection,
  SiteSectionGroup,
  SiteSpace,
  SiteStructureItem,
} from "@imprint/proto/publishing/v1/resources";
import type { ShareLink } from "@imprint/proto/publishing/v1/share_links";
import type { GetSiteRedirectBySourceResponse, SiteRedirect, SiteRedirectDestination } from "@imprint/proto/publishing/v1/site_redirects";
import type { SitePublishingAuth } from "@imprint/proto/publishing/v1/site_publishing_auth";
import type { Site, SiteStructure } from "@imprint/proto/publishing/v1/sites";
import { AppError } from "@imprint/runtime/core";
import { toRestSpace, type RestSpace } from "./space.js";
import { siteBaseUrl, type PublicUrls } from "./urls.js";

/** GitBook's site permissions (what the caller may do). */
export interface RestSitePermissions {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

export interface RestSite {
  object: "site";
  id: string;
  type: string;
  appliedType: string;
  title: string;
  hostname?: string;
  basename?: string;
  proxy?: { origin: string; target: string };
  visibility: string;
  defaultLevel: "inherit";
  permissions: RestSitePermissions;
  published: boolean;
  siteSpaces: number;
  createdAt: string;
  adaptiveContent: { enabled: boolean };
  agentsContext: string;
  features: never[];
  urls: { location: string; app: string; preview: string; published?: string };
}

export interface RestSiteSpace {
  object: "site-space";
  id: string;
  path: string;
  space: RestSpace;
  title: string;
  default: boolean;
  draft: boolean;
  hidden: false;
  condition?: string;
  section?: string;
  urls: { published?: string };
}

export interface RestShareLink {
  object: "share-link";
  id: string;
  createdAt: string;
  name: string;
  active: boolean;
  urls: { published?: string };
}

/** API URL of a site (also its `Location` when created). */
export function siteLocation(urls: PublicUrls, organizationId: string, siteId: string): string {
  return `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/sites/${encodeURIComponent(siteId)}`;
}

/** A published URL under the site (only while it is published). */
function publishedUrl(address: SiteAddress | undefined, urls: PublicUrls, path: string): string | undefined {
  if (!address?.published) return undefined;
  return `${siteBaseUrl(address, urls)}${path}`;
}

export function toRestSite(site: Site | undefined, urls: PublicUrls): RestSite {
  if (!site) throw new AppError("internal", "upstream answered without a site");
  const app = `${urls.app}/o/${encodeURIComponent(site.organizationId)}/sites/${encodeURIComponent(site.id)}/`;
  const base = siteBaseUrl({ siteId: site.id, organizationId: site.organizationId, basename: site.basename, hostname: site.hostname, proxy: site.proxy }, urls);
  const p = site.permissions;
  const rest: RestSite = {
    object: "site",
    id: site.id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    visibility: site.visibility,
    defaultLevel: "inherit",
    permissions: {
      view: p?.view ?? false,
      access: p?.access ?? false,
      edit: p?.edit ?? false,
      create: p?.create ?? false,
      admin: p?.admin ?? false,
      installIntegration: p?.installIntegration ?? false,
      viewAdaptiveSchema: p?.viewAdaptiveSchema ?? false,
      editAdaptiveSchema: p?.editAdaptiveSchema ?? false,
    },
    published: site.published,
    siteSpaces: site.siteSpaces,
    createdAt: (site.createdAt ?? new Date(0)).toISOString(),
    adaptiveContent: { enabled: site.adaptiveContentEnabled },
    agentsContext: site.agentsContext,
    features: [],
    urls: { location: siteLocation(urls, site.organizationId, site.id), app, preview: `${app}preview/` },
  };
  if (site.published) rest.urls.published = base;
  if (site.hostname) rest.hostname = site.hostname;
  if (site.basename) rest.basename = site.basename;
  // The origin is where readers go; the target is what it forwards to (this site's own address).
  if (site.proxy)
    rest.proxy = {
      origin: site.proxy,
      target: siteBaseUrl({ siteId: site.id, organizationId: site.organizationId, basename: site.basename, hostname: "", proxy: "" }, urls),
    };
  return rest;
}

/** With a share key (an active share link's, read with one), its published URL goes through that link. */
export function toRestSiteSpace(siteSpace: SiteSpace | undefined, urls: PublicUrls): RestSiteSpace {
  if (!siteSpace) throw new AppError("internal", "upstream answered without a site-space");
  const space = toRestSpace(siteSpace.space, urls);
  const through = siteSpace.shareKey ? `${encodeURIComponent(siteSpace.shareKey)}/` : "";
  const section = siteSpace.sectionPath ? `${encodeURIComponent(siteSpace.sectionPath)}/` : "";
  const published = publishedUrl(siteSpace.site, urls, `${through}${section}${encodeURIComponent(siteSpace.path)}/`);
  const rest: RestSiteSpace = {
    object: "site-space",
    id: siteSpace.id,
    path: siteSpace.path,
    space,
    title: space.title,
    default: siteSpace.default,
    draft: siteSpace.draft,
    hidden: false,
    urls: published ? { published } : {},
  };
  if (siteSpace.condition) rest.condition = siteSpace.condition;
  if (siteSpace.sectionId) rest.section = siteSpace.sectionId;
  return rest;
}

export interface RestSiteSection {
  object: "site-section";
  id: string;
  title: string;
  path: string;
  default: boolean;
  draft: boolean;
  description?: string;
  icon?: string;
  condition?: string;
  sectionGroup?: string;
  siteSpaces: RestSiteSpace[];
  urls: { published?: string };
}

export interface RestSiteSectionGroup {
  object: "site-section-group";
  id: string;
  title: string;
  icon?: string;
  sectionGroup?: string;
  draft: boolean;
  sections: RestSiteSection[];
  children: RestStructureItem[];
}

export interface RestSiteExternalLink {
  object: "site-external-link";
  id: string;
  title: string;
  url: string;
  draft: boolean;
  description?: string;
  icon?: string;
  sectionGroup?: string;
  condition?: string;
}

export type RestStructureItem = RestSiteSection | RestSiteSectionGroup | RestSiteExternalLink;

/** An item of a level of the structure: a section, a group (with its children) or an external link. */
export function toRestStructureItem(item: SiteStructureItem, urls: PublicUrls): RestStructureItem {
  if (item.group) return toRestSiteSectionGroup(item.group, urls);
  if (item.link) return toRestSiteExternalLink(item.link);
  return toRestSiteSection(item.section, urls);
}

export function toRestSiteSectionGroup(group: SiteSectionGroup | undefined, urls: PublicUrls): RestSiteSectionGroup {
  if (!group) throw new AppError("internal", "upstream answered without a site section group");
  const rest: RestSiteSectionGroup = {
    object: "site-section-group",
    id: group.id,
    title: group.title,
    draft: group.draft,
    sections: group.sections.map((section) => toRestSiteSection(section, urls)),
    children: group.children.map((child) => toRestStructureItem(child, urls)),
  };
  if (group.icon) rest.icon = group.icon;
  if (group.parentGroupId) rest.sectionGroup = group.parentGroupId;
  return rest;
}

export function toRestSiteExternalLink(link: SiteExternalLink | undefined): RestSiteExternalLink {
  if (!link) throw new AppError("internal", "upstream answered without an external link");
  const rest: RestSiteExternalLink = { object: "site-external-link", id: link.id, title: link.title, url: link.url, draft: link.draft };
  if (link.description) rest.description = link.description;
  if (link.icon) rest.icon = link.icon;
  if (link.sectionGroupId) rest.sectionGroup = link.sectionGroupId;
  if (link.condition) rest.condition = link.condition;
  return rest;
}

/** A section with its site-spaces; published at the site's address (through its share key, if any) plus its path. */
export function toRestSiteSection(section: SiteSection | undefined, urls: PublicUrls): RestSiteSection {
  if (!section) throw new AppError("internal", "upstream answered without a site section");
  const through = section.shareKey ? `${encodeURIComponent(section.shareKey)}/` : "";
  const published = publishedUrl(section.site, urls, `${through}${encodeURIComponent(section.path)}/`);
  const rest: RestSiteSection = {
    object: "site-section",
    id: section.id,
    title: section.title,
    path: section.path,
    default: section.default,
    draft: section.draft,
    siteSpaces: section.siteSpaces.map((siteSpace) => toRestSiteSpace(siteSpace, urls)),
    urls: published ? { published } : {},
  };
  if (section.description) rest.description = section.description;
  if (section.icon) rest.icon = section.icon;
  if (section.condition) rest.condition = section.condition;
  if (section.sectionGroupId) rest.sectionGroup = section.sectionGroupId;
  return rest;
}

/** Its key is the path segment after the site's base path (GitBook's convention). */
export function toRestShareLink(shareLink: ShareLink | undefined, urls: PublicUrls): RestShareLink {
  if (!shareLink) throw new AppError("internal", "upstream answered without a share link");
  const published = publishedUrl(shareLink.site, urls, `${encodeURIComponent(shareLink.key)}/`);
  return {
    object: "share-link",
    id: shareLink.id,
    createdAt: (shareLink.createdAt ?? new Date(0)).toISOString(),
    name: shareLink.name,
    active: shareLink.active,
    urls: published ? { published } : {},
  };
}

export interface RestSitePublishingAuth {
  object: "publishing-auth";
  backend: string;
  privateKey: string;
  fallbackURL?: string;
  logoutURL?: string;
}

export function toRestPublishingAuth(auth: SitePublishingAuth | undefined): RestSitePublishingAuth {
  if (!auth) throw new AppError("internal", "upstream answered without the publishing auth");
  const rest: RestSitePublishingAuth = { object: "publishing-auth", backend: auth.backend, privateKey: auth.privateKey };
  if (auth.fallbackUrl) rest.fallbackURL = auth.fallbackUrl;
  if (auth.logoutUrl) rest.logoutURL = auth.logoutUrl;
  return rest;
}

/** GitBook's SiteStructure: the top level (sections, groups) when the site has sections, else its site-spaces. */
export function toRestSiteStructure(structure: Pick<SiteStructure, "type" | "items" | "siteSpaces"> | undefined, urls: PublicUrls): Record<string, unknown> {
  if (structure?.type === "sections") {
    return { type: "sections", structure: structure.items.map((item) => toRestStructureItem(item, urls)) };
  }
  return { type: "siteSpaces", structure: (structure?.siteSpaces ?? []).map((siteSpace) => toRestSiteSpace(siteSpace, urls)) };
}

/** GitBook's SiteCustomizationSettings: the settings, with `updatedAt` once they were set. */
export function toRestCustomization(customization: SiteCustomization | undefined): Record<string, unknown> {
  const settings = JSON.parse(customization?.json ?? "{}") as Record<string, unknown>;
  return customization?.updatedAt ? { ...settings, updatedAt: customization.updatedAt.toISOString() } : settings;
}

export type RestSiteRedirectDestination =
  | { kind: "site-section"; siteSectionId: string }
  | { kind: "site-space"; siteSpaceId: string }
  | { kind: "site-page"; siteSpaceId: string; pageId: string }
  | { kind: "external"; url: string };

export interface RestSiteRedirect {
  object: "site-redirect";
  id: string;
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: RestSiteRedirectDestination;
  createdAt: string;
  updatedAt?: string;
}

function toRestRedirectDestination(destination: SiteRedirectDestination | undefined): RestSiteRedirectDestination {
  switch (destination?.kind) {
    case "site-section":
      return { kind: "site-section", siteSectionId: destination.siteSectionId };
    case "site-space":
      return { kind: "site-space", siteSpaceId: destination.siteSpaceId };
    case "site-page":
      return { kind: "site-page", siteSpaceId: destination.siteSpaceId, pageId: destination.pageId };
    case "external":
      return { kind: "external", url: destination.url };
    default:
      throw new AppError("internal", "upstream answered a redirect without a destination");
  }
}

export function toRestSiteRedirect(redirect: SiteRedirect | undefined): RestSiteRedirect {
  if (!redirect) throw new AppError("internal", "upstream answered without a redirect");
  const rest: RestSiteRedirect = {
    object: "site-redirect",
    id: redirect.id,
    source: redirect.source,
    draft: redirect.draft,
    captureWildcard: redirect.captureWildcard,
    permanent: redirect.permanent,
    destination: toRestRedirectDestination(redirect.destination),
    createdAt: (redirect.createdAt ?? new Date(0)).toISOString(),
  };
  if (redirect.updatedAt) rest.updatedAt = redirect.updatedAt.toISOString();
  return rest;
}

/** getSiteRedirectBySource: the redirect and the URL it leads to (under the site's published address, or elsewhere). */
export function toRestResolvedRedirect(resolved: GetSiteRedirectBySourceResponse, urls: PublicUrls): { redirect: RestSiteRedirect; target: string } {
  const redirect = toRestSiteRedirect(resolved.redirect);
  if (resolved.targetUrl) return { redirect, target: resolved.targetUrl };
  if (!resolved.site) throw new AppError("internal", "upstream answered a redirect without its site");
  return { redirect, target: `${siteBaseUrl(resolved.site, urls)}${resolved.targetPath}` };
}
