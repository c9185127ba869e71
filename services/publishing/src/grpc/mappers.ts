import type { ShareLink as ShareLinkMessage, Site as SiteMessage, SiteAddress, SitePublishingAuth, SiteSpace as SiteSpaceMessage } from "@imprint/proto/publishing/v1/sites";
import type { Site } from "../domain/site.js";
import type { PublishingAuthView } from "../use-cases/shared/publishing-auth.js";
import type { ShareLinkView } from "../use-cases/shared/share-links.js";
import type { SiteSpaceView } from "../use-cases/shared/site-spaces.js";
import type { SiteView } from "../use-cases/shared/sites.js";

export function siteToProto({ site, siteSpaces, defaultSiteSpaceId, permissions }: SiteView): SiteMessage {
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

export function siteSpaceToProto({ siteSpace, space, isDefault, site, shareKey }: SiteSpaceView): SiteSpaceMessage {
  return {
    id: siteSpace.id,
    siteId: siteSpace.siteId,
    path: siteSpace.path,
    space,
    default: isDefault,
    condition: siteSpace.condition,
    site: siteAddress(site),
    shareKey: shareKey ?? "",
  };
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
