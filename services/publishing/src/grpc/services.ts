import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import { SiteSectionServiceService } from "@imprint/proto/publishing/v1/site_sections";
import { SiteSectionGroupServiceService } from "@imprint/proto/publishing/v1/site_section_groups";
import { SiteSpaceServiceService } from "@imprint/proto/publishing/v1/site_spaces";
import { SiteStructureServiceService } from "@imprint/proto/publishing/v1/site_structure";
import { SiteExternalLinkServiceService } from "@imprint/proto/publishing/v1/site_external_links";
import { SitePublishingAuthServiceService } from "@imprint/proto/publishing/v1/site_publishing_auth";
import { SiteAdaptiveSchemaServiceService } from "@imprint/proto/publishing/v1/site_adaptive_schema";
import { SiteCustomizationServiceService } from "@imprint/proto/publishing/v1/site_customization";
import { ShareLinkServiceService } from "@imprint/proto/publishing/v1/share_links";
import { SiteRedirectServiceService } from "@imprint/proto/publishing/v1/site_redirects";
import { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import { SitePermissionServiceService } from "@imprint/proto/publishing/v1/site_permissions";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ReaderServiceService } from "@imprint/proto/publishing/v1/reader";
import { SpacePublicationServiceService } from "@imprint/proto/publishing/v1/space_publications";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { ServiceRegistration } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { SITE_SERVICE_NAME, siteServiceImplementation } from "./site-service.js";
import { SITE_SECTION_SERVICE_NAME, siteSectionServiceImplementation } from "./site-section-service.js";
import { SITE_SECTION_GROUP_SERVICE_NAME, siteSectionGroupServiceImplementation } from "./site-section-group-service.js";
import { SITE_SPACE_SERVICE_NAME, siteSpaceServiceImplementation } from "./site-space-service.js";
import { SITE_STRUCTURE_SERVICE_NAME, siteStructureServiceImplementation } from "./site-structure-service.js";
import { SITE_EXTERNAL_LINK_SERVICE_NAME, siteExternalLinkServiceImplementation } from "./site-external-link-service.js";
import { SITE_PUBLISHING_AUTH_SERVICE_NAME, sitePublishingAuthServiceImplementation } from "./site-publishing-auth-service.js";
import { SITE_ADAPTIVE_SCHEMA_SERVICE_NAME, siteAdaptiveSchemaServiceImplementation } from "./site-adaptive-schema-service.js";
import { SITE_CUSTOMIZATION_SERVICE_NAME, siteCustomizationServiceImplementation } from "./site-customization-service.js";
import { SHARE_LINK_SERVICE_NAME, shareLinkServiceImplementation } from "./share-link-service.js";
import { SITE_REDIRECT_SERVICE_NAME, siteRedirectServiceImplementation } from "./site-redirect-service.js";
import { SITE_INSIGHTS_SERVICE_NAME, siteInsightsServiceImplementation } from "./site-insights-service.js";
import { SITE_PERMISSION_SERVICE_NAME, sitePermissionServiceImplementation } from "./site-permission-service.js";
import { MEMBER_VISITOR_TOKEN_SERVICE_NAME, memberVisitorTokenServiceImplementation } from "./member-visitor-token-service.js";
import { READER_SERVICE_NAME, readerServiceImplementation } from "./reader-service.js";
import { SPACE_PUBLICATION_SERVICE_NAME, spacePublicationServiceImplementation } from "./space-publication-service.js";

/** Publishing's gRPC services, one per resource (proto/imprint/publishing/v1), each on a fresh EntityManager per call. */
export function publishingGrpcServices(em: () => EntityManager, deps: UseCaseDeps): ServiceRegistration[] {
  return [
    { name: SITE_SERVICE_NAME, definition: SiteServiceService, implementation: siteServiceImplementation(em, deps) },
    { name: SITE_SECTION_SERVICE_NAME, definition: SiteSectionServiceService, implementation: siteSectionServiceImplementation(em, deps) },
    { name: SITE_SECTION_GROUP_SERVICE_NAME, definition: SiteSectionGroupServiceService, implementation: siteSectionGroupServiceImplementation(em, deps) },
    { name: SITE_SPACE_SERVICE_NAME, definition: SiteSpaceServiceService, implementation: siteSpaceServiceImplementation(em, deps) },
    { name: SITE_STRUCTURE_SERVICE_NAME, definition: SiteStructureServiceService, implementation: siteStructureServiceImplementation(em, deps) },
    { name: SITE_EXTERNAL_LINK_SERVICE_NAME, definition: SiteExternalLinkServiceService, implementation: siteExternalLinkServiceImplementation(em, deps) },
    {
      name: SITE_PUBLISHING_AUTH_SERVICE_NAME,
      definition: SitePublishingAuthServiceService,
      implementation: sitePublishingAuthServiceImplementation(em, deps),
    },
    {
      name: SITE_ADAPTIVE_SCHEMA_SERVICE_NAME,
      definition: SiteAdaptiveSchemaServiceService,
      implementation: siteAdaptiveSchemaServiceImplementation(em, deps),
    },
    { name: SITE_CUSTOMIZATION_SERVICE_NAME, definition: SiteCustomizationServiceService, implementation: siteCustomizationServiceImplementation(em, deps) },
    { name: SHARE_LINK_SERVICE_NAME, definition: ShareLinkServiceService, implementation: shareLinkServiceImplementation(em, deps) },
    { name: SITE_REDIRECT_SERVICE_NAME, definition: SiteRedirectServiceService, implementation: siteRedirectServiceImplementation(em, deps) },
    { name: SITE_INSIGHTS_SERVICE_NAME, definition: SiteInsightsServiceService, implementation: siteInsightsServiceImplementation(em, deps) },
    { name: SITE_PERMISSION_SERVICE_NAME, definition: SitePermissionServiceService, implementation: sitePermissionServiceImplementation(em, deps) },
    {
      name: MEMBER_VISITOR_TOKEN_SERVICE_NAME,
      definition: MemberVisitorTokenServiceService,
      implementation: memberVisitorTokenServiceImplementation(em, deps),
    },
    { name: READER_SERVICE_NAME, definition: ReaderServiceService, implementation: readerServiceImplementation(em) },
    { name: SPACE_PUBLICATION_SERVICE_NAME, definition: SpacePublicationServiceService, implementation: spacePublicationServiceImplementation(em, deps) },
  ] as ServiceRegistration[];
}
