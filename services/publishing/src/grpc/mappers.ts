import { parseRequestJson } from "@imprint/runtime";
import type { GetReaderSiteResponse, ReaderItem, ReaderRedirect, ReaderSiteSpace } from "@imprint/proto/publishing/v1/reader";
import type {
  SiteAddress,
  SiteCustomization,
  SiteExternalLink as SiteExternalLinkMessage,
  SiteSection as SiteSectionMessage,
  SiteSectionGroup as SiteSectionGroupMessage,
  SiteSpace as SiteSpaceMessage,
  SiteStructureItem,
} from "@imprint/proto/publishing/v1/resources";
import type { ShareLink as ShareLinkMessage } from "@imprint/proto/publishing/v1/share_links";
import type { SitePublishingAuth } from "@imprint/proto/publishing/v1/site_publishing_auth";
import type { SiteRedirect as SiteRedirectMessage, SiteRedirectDestination } from "@imprint/proto/publishing/v1/site_redirects";
import type { Site as SiteMessage, SiteStructure } from "@imprint/proto/publishing/v1/sites";
import type { Site } from "../domain/site.js";
import { destinationOf, type SiteRedirect } from "../domain/site-redirect.js";
import type { ReaderItemView, ReaderSiteSpaceView, ReaderSiteView } from "../use-cases/reader/get-reader-site.js";
import type { CustomizationView } from "../use-cases/shared/customization.js";
import type { PublishingAuthView } from "../use-cases/shared/publishing-auth.js";
import type { SectionGroupView } from "../use-cases/shared/section-groups.js";
import type { SectionView } from "../use-cases/shared/sections.js";
import type { ShareLinkView } from "../use-cases/shared/share-links.js";
import type { DestinationRequest, SiteRedirectView } from "../use-cases/shared/site-redirects.js";
import type { SiteSpaceView } from "../use-cases/shared/site-spaces.js";
import type { SiteView } from "../use-cases/shared/sites.js";
import type { ExternalLinkView, SiteStructureView, StructureItemView } from "../use-cases/shared/structure.js";

/** JSON text from the wire: text that does not parse, or nests past MAX_JSON_DEPTH, is the caller's mistake (`field` names it). */
export function parseJson(text: string, field: string): unknown {
  return parseRequestJson(text, field, { malformed: "must be JSON" });
}

export function siteToProto({ site, siteSpaces, defaultSiteSpaceId, defaultSiteSectionId, permissions }: SiteView): SiteMessage {
  return {
    id: site.id,
    organizationId: site.organizationId,
    type: site.type,
    title: site.title,
    visibility: site.visibility,
    published: site.published,
    basename: site.basename ?? "",
    hostname: site.hostname ?? "",
    proxy: site.proxy ?? "",
    adaptiveContentEnabled: site.adaptiveContentEnabled,
    agentsContext: site.agentsContext,
    defaultSiteSpaceId: defaultSiteSpaceId ?? "",
    siteSpaces,
    createdAt: site.createdAt,
    updatedAt: site.updatedAt,
    permissions,
    defaultSiteSectionId: defaultSiteSectionId ?? "",
  };
}

export function siteAddress(site: Site): SiteAddress {
  return {
    siteId: site.id,
    organizationId: site.organizationId,
    published: site.published,
    basename: site.basename ?? "",
    hostname: site.hostname ?? "",
    proxy: site.proxy ?? "",
  };
}

export function siteSpaceToProto({ siteSpace, space, isDefault, site, shareKey, sectionPath }: SiteSpaceView): SiteSpaceMessage {
  return {
    id: siteSpace.id,
    siteId: siteSpace.siteId,
    path: siteSpace.path,
    space,
    default: isDefault,
    condition: siteSpace.condition,
    site: siteAddress(site),
    shareKey: shareKey ?? "",
    sectionId: siteSpace.sectionId ?? "",
    sectionPath,
    draft: siteSpace.draft,
  };
}

export function sectionToProto({ section, site, isDefault, siteSpaces, shareKey }: SectionView): SiteSectionMessage {
  return {
    id: section.id,
    siteId: section.siteId,
    title: section.title,
    path: section.path,
    description: section.description,
    icon: section.icon ?? "",
    condition: section.condition,
    default: isDefault,
    siteSpaces: siteSpaces.map(siteSpaceToProto),
    site: siteAddress(site),
    shareKey,
    sectionGroupId: section.sectionGroupId ?? "",
    draft: section.draft,
  };
}

export function sectionGroupToProto({ group, sections, children }: SectionGroupView): SiteSectionGroupMessage {
  return {
    id: group.id,
    siteId: group.siteId,
    title: group.title,
    icon: group.icon ?? "",
    sections: sections.map(sectionToProto),
    children: children.map(structureItemToProto),
    parentGroupId: group.parentGroupId ?? "",
    draft: group.draft,
  };
}

export function externalLinkToProto({ link }: ExternalLinkView): SiteExternalLinkMessage {
  return {
    id: link.id,
    siteId: link.siteId,
    title: link.title,
    description: link.description,
    icon: link.icon ?? "",
    url: link.url,
    condition: link.condition,
    sectionGroupId: link.sectionGroupId ?? "",
    draft: link.draft,
  };
}

export function structureItemToProto(item: StructureItemView): SiteStructureItem {
  if (item.kind === "section") return { section: sectionToProto(item.section) };
  return item.kind === "group" ? { group: sectionGroupToProto(item.group) } : { link: externalLinkToProto(item.link) };
}

export function shareLinkToProto({ shareLink, site }: ShareLinkView): ShareLinkMessage {
  return {
    id: shareLink.id,
    siteId: shareLink.siteId,
    name: shareLink.name,
    active: shareLink.active,
    key: shareLink.key,
    createdAt: shareLink.createdAt,
    site: siteAddress(site),
  };
}

export function publishingAuthToProto(auth: PublishingAuthView): SitePublishingAuth {
  return { backend: auth.backend, privateKey: auth.privateKey, fallbackUrl: auth.fallbackUrl ?? "", logoutUrl: auth.logoutUrl ?? "" };
}

export function structureToProto(structure: SiteStructureView): SiteStructure {
  return structure.type === "sections"
    ? {
        type: structure.type,
        siteSpaces: [],
        items: structure.items.map(structureItemToProto),
      }
    : { type: structure.type, siteSpaces: structure.siteSpaces.map(siteSpaceToProto), items: [] };
}

export function customizationToProto({ customization, updatedAt }: CustomizationView): SiteCustomization {
  return { json: JSON.stringify(customization), updatedAt: updatedAt ?? undefined };
}

function readerSiteSpaceToProto({ siteSpace, isDefault, customization }: ReaderSiteSpaceView): ReaderSiteSpace {
  return {
    id: siteSpace.id,
    spaceId: siteSpace.spaceId,
    path: siteSpace.path,
    condition: siteSpace.condition,
    default: isDefault,
    customizationJson: customization ? JSON.stringify(customization) : "",
  };
}

function readerItemToProto(item: ReaderItemView): ReaderItem {
  if (item.kind === "group")
    return { group: { id: item.group.id, title: item.group.title, icon: item.group.icon ?? "", children: item.children.map(readerItemToProto) } };
  if (item.kind === "link")
    return { link: { id: item.link.id, title: item.link.title, url: item.link.url, icon: item.link.icon ?? "", condition: item.link.condition } };
  const { section } = item;
  return {
    section: {
      id: section.id,
      title: section.title,
      path: section.path,
      description: section.description,
      icon: section.icon ?? "",
      condition: section.condition,
      default: item.isDefault,
      siteSpaces: item.siteSpaces.map(readerSiteSpaceToProto),
    },
  };
}

/** A published site for the reader; the visitor-auth key only for a visitor-auth site. */
export function readerSiteToProto({ site, customization, items, siteSpaces }: ReaderSiteView): GetReaderSiteResponse {
  const visitorAuth = site.visibility === "visitor-auth";
  return {
    siteId: site.id,
    organizationId: site.organizationId,
    title: site.title,
    visibility: site.visibility,
    basename: site.basename ?? "",
    hostname: site.hostname ?? "",
    agentsContext: site.agentsContext,
    adaptiveContentEnabled: site.adaptiveContentEnabled,
    customizationJson: JSON.stringify(customization),
    version: site.version,
    items: items.map(readerItemToProto),
    siteSpaces: siteSpaces.map(readerSiteSpaceToProto),
    visitorAuthKey: visitorAuth ? site.visitorAuthKey : "",
    fallbackUrl: visitorAuth ? (site.visitorAuthFallbackUrl ?? "") : "",
    logoutUrl: visitorAuth ? (site.visitorAuthLogoutUrl ?? "") : "",
  };
}

function destinationToProto(redirect: SiteRedirect): SiteRedirectDestination {
  const destination = destinationOf(redirect);
  return {
    kind: destination.kind,
    siteSectionId: destination.siteSectionId ?? "",
    siteSpaceId: destination.siteSpaceId ?? "",
    pageId: destination.pageId ?? "",
    url: destination.url ?? "",
    spaceId: "",
    path: "",
  };
}

export function siteRedirectToProto({ redirect }: SiteRedirectView): SiteRedirectMessage {
  return {
    id: redirect.id,
    siteId: redirect.siteId,
    source: redirect.source,
    draft: redirect.draft,
    captureWildcard: redirect.captureWildcard,
    permanent: redirect.permanent,
    destination: destinationToProto(redirect),
    createdAt: redirect.createdAt,
    updatedAt: redirect.updatedAt ?? undefined,
    automatic: redirect.automatic,
  };
}

/** A request's destination; unset is a destination of no kind (refused naming its kind). */
export function destinationFromProto(destination: SiteRedirectDestination | undefined): DestinationRequest {
  return {
    kind: destination?.kind ?? "",
    siteSectionId: destination?.siteSectionId ?? "",
    siteSpaceId: destination?.siteSpaceId ?? "",
    pageId: destination?.pageId ?? "",
    url: destination?.url ?? "",
    spaceId: destination?.spaceId ?? "",
    path: destination?.path ?? "",
  };
}

export function readerRedirectToProto(redirect: SiteRedirect): ReaderRedirect {
  const destination = destinationToProto(redirect);
  return {
    source: redirect.source,
    permanent: redirect.permanent,
    captureWildcard: redirect.captureWildcard,
    kind: destination.kind,
    siteSectionId: destination.siteSectionId,
    siteSpaceId: destination.siteSpaceId,
    pageId: destination.pageId,
    url: destination.url,
  };
}
