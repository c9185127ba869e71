import type { ServiceDefinition } from "@grpc/grpc-js";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { GitServiceService } from "@imprint/proto/content/v1/git";
import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import { TeamPermissionServiceService, UserPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { TranslationSettingsServiceService } from "@imprint/proto/content/v1/translations";
import { LinkServiceService } from "@imprint/proto/content/v1/links";
import { SearchServiceService } from "@imprint/proto/content/v1/search";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { ChangeRequestReviewServiceService } from "@imprint/proto/collaboration/v1/reviews";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ShareLinkServiceService } from "@imprint/proto/publishing/v1/share_links";
import { SiteRedirectServiceService } from "@imprint/proto/publishing/v1/site_redirects";
import { SiteInsightsServiceService } from "@imprint/proto/publishing/v1/site_insights";
import { SitePermissionServiceService } from "@imprint/proto/publishing/v1/site_permissions";
import { SiteAdaptiveSchemaServiceService } from "@imprint/proto/publishing/v1/site_adaptive_schema";
import { SiteCustomizationServiceService } from "@imprint/proto/publishing/v1/site_customization";
import { SiteExternalLinkServiceService } from "@imprint/proto/publishing/v1/site_external_links";
import { SitePublishingAuthServiceService } from "@imprint/proto/publishing/v1/site_publishing_auth";
import { SiteSectionGroupServiceService } from "@imprint/proto/publishing/v1/site_section_groups";
import { SiteSectionServiceService } from "@imprint/proto/publishing/v1/site_sections";
import { SiteSpaceServiceService } from "@imprint/proto/publishing/v1/site_spaces";
import { SiteStructureServiceService } from "@imprint/proto/publishing/v1/site_structure";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import { InstallationServiceService } from "@imprint/proto/integration/v1/installations";
import { IntegrationEventServiceService } from "@imprint/proto/integration/v1/integration_events";
import { IntegrationServiceService } from "@imprint/proto/integration/v1/integrations";
import { ScriptServiceService } from "@imprint/proto/integration/v1/scripts";
import { TargetInstallationServiceService } from "@imprint/proto/integration/v1/target_installations";
import {
  closeUpstreams,
  IDENTITY_SERVICES,
  openUpstreams,
  type ClientWrapper,
  type CoHostedServices,
  type UpstreamClients as RuntimeUpstreamClients,
} from "@imprint/runtime/core";
import { withWriteKeys, type WriteKeys } from "./keyed-writes.js";

/**
 * Every gRPC server the gateway talks to, and the services it calls there, by the names routes use
 * (`clients.content.spaces`). Adding a bounded context to the public API is one entry here (plus
 * its routes): the config variable, the clients and the readiness check follow from it.
 */
export const UPSTREAMS = {
  identity: { addressVariable: "IDENTITY_GRPC_ADDRESS", definitions: IDENTITY_SERVICES },
  content: {
    addressVariable: "CONTENT_GRPC_ADDRESS",
    definitions: {
      collections: CollectionServiceService,
      spaces: SpaceServiceService,
      revisions: RevisionServiceService,
      import: ImportServiceService,
      git: GitServiceService,
      openapi: OpenAPISpecServiceService,
      translations: TranslationSettingsServiceService,
      links: LinkServiceService,
      search: SearchServiceService,
      exports: ExportServiceService,
      permissions: TeamPermissionServiceService,
      userPermissions: UserPermissionServiceService,
    },
  },
  collaboration: {
    addressVariable: "COLLABORATION_GRPC_ADDRESS",
    definitions: { changeRequests: ChangeRequestServiceService, comments: CommentServiceService, reviews: ChangeRequestReviewServiceService },
  },
  publishing: {
    addressVariable: "PUBLISHING_GRPC_ADDRESS",
    definitions: {
      sites: SiteServiceService,
      sections: SiteSectionServiceService,
      sectionGroups: SiteSectionGroupServiceService,
      siteSpaces: SiteSpaceServiceService,
      structure: SiteStructureServiceService,
      externalLinks: SiteExternalLinkServiceService,
      publishingAuth: SitePublishingAuthServiceService,
      adaptiveSchema: SiteAdaptiveSchemaServiceService,
      customization: SiteCustomizationServiceService,
      shareLinks: ShareLinkServiceService,
      siteRedirects: SiteRedirectServiceService,
      siteInsights: SiteInsightsServiceService,
      sitePermissions: SitePermissionServiceService,
      memberVisitorTokens: MemberVisitorTokenServiceService,
    },
  },
  integration: {
    addressVariable: "INTEGRATION_GRPC_ADDRESS",
    definitions: {
      integrations: IntegrationServiceService,
      installations: InstallationServiceService,
      targetInstallations: TargetInstallationServiceService,
      integrationEvents: IntegrationEventServiceService,
      scripts: ScriptServiceService,
    },
  },
} as const satisfies Record<string, { addressVariable: string; definitions: Record<string, ServiceDefinition> }>;

export type UpstreamName = keyof typeof UPSTREAMS;
export const UPSTREAM_NAMES = Object.keys(UPSTREAMS) as UpstreamName[];

export type UpstreamClients = { [K in UpstreamName]: RuntimeUpstreamClients<(typeof UPSTREAMS)[K]["definitions"]> };
export type UpstreamAddresses = Record<UpstreamName, string>;

/**
 * Long-lived clients shared by every request, one connection per copy of each upstream. With
 * `writeKeys`, their write methods send the keys of a request with an Idempotency-Key and repeat
 * on UNAVAILABLE (keyed-writes.ts): here, once, for every route. With `coHosted` (the services
 * hosted in this process), those found there are called directly.
 */
export function createUpstreamClients(addresses: UpstreamAddresses, timeoutMs: number, writeKeys?: WriteKeys, coHosted?: CoHostedServices): UpstreamClients {
  const wrap: ClientWrapper | undefined = writeKeys ? (client, definition) => withWriteKeys(client, definition, writeKeys, timeoutMs) : undefined;
  const specs = Object.fromEntries(
    UPSTREAM_NAMES.map((name) => [name, { address: addresses[name], services: UPSTREAMS[name].definitions, defaultTimeoutMs: timeoutMs }]),
  );
  return openUpstreams(specs, { wrap, coHosted }) as unknown as UpstreamClients;
}

export function closeUpstreamClients(clients: UpstreamClients): void {
  closeUpstreams(clients);
}
