import {
  ShareLinkCreated,
  ShareLinkDeleted,
  ShareLinkUpdated,
  SiteCreated,
  SiteDeleted,
  SiteExternalLinkCreated,
  SiteExternalLinkDeleted,
  SiteExternalLinkMoved,
  SiteExternalLinkUpdated,
  SitePublished,
  SitePublishingAuthRegenerated,
  SiteSectionCreated,
  SiteSectionDeleted,
  SiteSectionGroupCreated,
  SiteSectionGroupDeleted,
  SiteSectionGroupMoved,
  SiteSectionGroupUpdated,
  SiteSectionMoved,
  SiteSectionUpdated,
  SiteSpaceCreated,
  SiteSpaceDeleted,
  SiteSpaceMoved,
  SiteSpaceUpdated,
  SiteUnpublished,
  SiteUpdated,
  SpacePublicationUpdated,
} from "@imprint/proto/publishing/v1/events";
import { contextEvents } from "@imprint/runtime";

/** Every publishing event goes to the `IMPRINT_PUBLISHING` stream, subjects `imprint.publishing.v1.<aggregate>.<event>`. */
export const PUBLISHING_EVENT_CONTEXT = "publishing";

/**
 * The publishing events, each payload a message of `proto/imprint/publishing/v1/events.proto`
 * (listed in the event catalogue of docs/architecture.md, which a test checks against these
 * definitions).
 */
const publishingEvent = contextEvents(PUBLISHING_EVENT_CONTEXT);

export const siteCreated = publishingEvent("site", "created", SiteCreated);
export const spacePublicationUpdated = publishingEvent("space_publication", "updated", SpacePublicationUpdated);
export const siteExternalLinkCreated = publishingEvent("site_external_link", "created", SiteExternalLinkCreated);
export const siteExternalLinkUpdated = publishingEvent("site_external_link", "updated", SiteExternalLinkUpdated);
export const siteExternalLinkMoved = publishingEvent("site_external_link", "moved", SiteExternalLinkMoved);
export const siteExternalLinkDeleted = publishingEvent("site_external_link", "deleted", SiteExternalLinkDeleted);
export const siteUpdated = publishingEvent("site", "updated", SiteUpdated);
export const sitePublished = publishingEvent("site", "published", SitePublished);
export const siteUnpublished = publishingEvent("site", "unpublished", SiteUnpublished);
export const siteDeleted = publishingEvent("site", "deleted", SiteDeleted);
export const sitePublishingAuthRegenerated = publishingEvent("site", "publishing_auth_regenerated", SitePublishingAuthRegenerated);
export const siteSectionCreated = publishingEvent("site_section", "created", SiteSectionCreated);
export const siteSectionUpdated = publishingEvent("site_section", "updated", SiteSectionUpdated);
export const siteSectionMoved = publishingEvent("site_section", "moved", SiteSectionMoved);
export const siteSectionDeleted = publishingEvent("site_section", "deleted", SiteSectionDeleted);
export const siteSectionGroupCreated = publishingEvent("site_section_group", "created", SiteSectionGroupCreated);
export const siteSectionGroupUpdated = publishingEvent("site_section_group", "updated", SiteSectionGroupUpdated);
export const siteSectionGroupMoved = publishingEvent("site_section_group", "moved", SiteSectionGroupMoved);
export const siteSectionGroupDeleted = publishingEvent("site_section_group", "deleted", SiteSectionGroupDeleted);
export const siteSpaceCreated = publishingEvent("site_space", "created", SiteSpaceCreated);
export const siteSpaceUpdated = publishingEvent("site_space", "updated", SiteSpaceUpdated);
export const siteSpaceMoved = publishingEvent("site_space", "moved", SiteSpaceMoved);
export const siteSpaceDeleted = publishingEvent("site_space", "deleted", SiteSpaceDeleted);
export const shareLinkCreated = publishingEvent("share_link", "created", ShareLinkCreated);
export const shareLinkUpdated = publishingEvent("share_link", "updated", ShareLinkUpdated);
export const shareLinkDeleted = publishingEvent("share_link", "deleted", ShareLinkDeleted);
