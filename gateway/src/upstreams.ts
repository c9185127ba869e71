import type { ServiceDefinition } from "@grpc/grpc-js";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { GitServiceService } from "@imprint/proto/content/v1/git";
import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { OpenAPISpecServiceService } from "@imprint/proto/content/v1/openapi";
import { TeamPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { TranslationSettingsServiceService } from "@imprint/proto/content/v1/translations";
import { LinkServiceService } from "@imprint/proto/content/v1/links";
import { SearchServiceService } from "@imprint/proto/content/v1/search";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ShareLinkServiceService } from "@imprint/proto/publishing/v1/share_links";
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
import { createPromiseClient, IDENTITY_SERVICES, type PromiseClient } from "@imprint/runtime/core";
import { withWriteKeys, type WriteKeys } from "./keyed-writes.js";

/**
 * Every gRPC server the gateway talks to. Adding a bounded context to the public API is one entry
 * here (plus its routes): the config variable, the clients and the readiness check follow from it.
 * An upstream serves either one service (`definition`: the client is that service's client) or
 * several on one address (`definitions`: one client per service, e.g. `clients.content.spaces`).
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
    },
  },
  collaboration: {
    addressVariable: "COLLABORATION_GRPC_ADDRESS",
    definitions: { changeRequests: ChangeRequestServiceService, comments: CommentServiceService },
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
} as const satisfies Record<
  string,
  { addressVariable: string; definition: ServiceDefinition } | { addressVariable: string; definitions: Record<string, ServiceDefinition> }
>;

export type UpstreamName = keyof typeof UPSTREAMS;
export const UPSTREAM_NAMES = Object.keys(UPSTREAMS) as UpstreamName[];

/** An upstream entry as plain data, for the loops below. */
type UpstreamEntry = { addressVariable: string; definition?: ServiceDefinition; definitions?: Record<string, ServiceDefinition> };
const entry = (name: UpstreamName): UpstreamEntry => UPSTREAMS[name];

type ClientsOf<U> = U extends { definition: infer D }
  ? PromiseClient<D>
  : U extends { definitions: infer Ds }
    ? { [S in keyof Ds]: PromiseClient<Ds[S]> } & { close(): void }
    : never;

export type UpstreamClients = { [K in UpstreamName]: ClientsOf<(typeof UPSTREAMS)[K]> };
export type UpstreamAddresses = Record<UpstreamName, string>;

/**
 * The name readiness asks grpc.health.v1 about: the service's fully qualified name (e.g.
 * imprint.publishing.v1.SiteService) for a single-service upstream, "" (the whole server) for
 * one that serves several.
 */
export function grpcServiceName(name: UpstreamName): string {
  const upstream = entry(name);
  if (!upstream.definition) return "";
  const firstMethod = Object.values(upstream.definition)[0] as { path: string } | undefined;
  if (!firstMethod) throw new Error(`upstream ${name} has no methods`);
  return firstMethod.path.split("/")[1] ?? "";
}

/**
 * Long-lived clients shared by every request. The clients of one upstream's services share one
 * HTTP/2 connection: grpc-js pools subchannels by address and options. With `writeKeys`, their
 * write methods send the keys of a request with an Idempotency-Key and repeat on UNAVAILABLE
 * (keyed-writes.ts): here, once, for every route.
 */
export function createUpstreamClients(addresses: UpstreamAddresses, timeoutMs: number, writeKeys?: WriteKeys): UpstreamClients {
  const clients: Partial<Record<UpstreamName, unknown>> = {};
  const options = { defaultTimeoutMs: timeoutMs };
  const client = <Def extends ServiceDefinition>(definition: Def, address: string, channelDefinitions?: ServiceDefinition[]) => {
    const plain = createPromiseClient(definition, address, channelDefinitions ? { ...options, channelDefinitions } : options);
    return writeKeys ? withWriteKeys(plain, definition, writeKeys, timeoutMs) : plain;
  };
  for (const name of UPSTREAM_NAMES) {
    const upstream = entry(name);
    if (upstream.definition) {
      clients[name] = client(upstream.definition, addresses[name]);
    } else {
      const group: Record<string, { close(): void }> = {};
      // One service config for all of them: equal channel options, so one connection per copy.
      const channelDefinitions = Object.values(upstream.definitions ?? {});
      for (const [service, definition] of Object.entries(upstream.definitions ?? {})) {
        group[service] = client(definition, addresses[name], channelDefinitions);
      }
      clients[name] = { ...group, close: () => Object.values(group).forEach((each) => each.close()) };
    }
  }
  return clients as UpstreamClients;
}

export function closeUpstreamClients(clients: UpstreamClients): void {
  for (const name of UPSTREAM_NAMES) clients[name].close();
}
