import type { ServiceDefinition } from "@grpc/grpc-js";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ReaderServiceService } from "@imprint/proto/publishing/v1/reader";
import { ShareLinkServiceService } from "@imprint/proto/publishing/v1/share_links";
import { SiteRedirectServiceService } from "@imprint/proto/publishing/v1/site_redirects";
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
import { SpacePublicationServiceService } from "@imprint/proto/publishing/v1/space_publications";
import type { PromiseClient } from "../grpc/client.js";
import type { IdentityClients } from "../access/identity-clients.js";
import { testClient, testIdentityClients } from "./support.js";

/** Publishing's gRPC services, one per resource, by the name their clients take. */
const PUBLISHING_SERVICES = {
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
  sitePermissions: SitePermissionServiceService,
  memberVisitorTokens: MemberVisitorTokenServiceService,
  reader: ReaderServiceService,
  spacePublications: SpacePublicationServiceService,
} as const;

/** A client of each of publishing's services (`sites`, `siteSpaces`, `reader`, …). */
export type PublishingClients = { readonly [Name in keyof typeof PUBLISHING_SERVICES]: PromiseClient<(typeof PUBLISHING_SERVICES)[Name]> };

/** Clients whose each opens on first use (`open`), from a map of service definitions. */
function lazyClients<Definitions extends Record<string, ServiceDefinition>>(
  definitions: Definitions,
  open: (definition: ServiceDefinition) => PromiseClient<ServiceDefinition>,
): { readonly [Name in keyof Definitions]: PromiseClient<Definitions[Name]> } {
  const clients = {};
  for (const [name, definition] of Object.entries(definitions)) {
    let client: PromiseClient<ServiceDefinition> | undefined;
    Object.defineProperty(clients, name, { enumerable: true, get: () => (client ??= open(definition)) });
  }
  return clients as { readonly [Name in keyof Definitions]: PromiseClient<Definitions[Name]> };
}

/** Clients of publishing's services at `address`, and a function closing them all. */
export function publishingClients(address: string): { clients: PublishingClients; close: () => void } {
  const opened = Object.entries(PUBLISHING_SERVICES).map(([name, definition]) => [name, testClient(definition, address)] as const);
  return {
    clients: Object.fromEntries(opened) as unknown as PublishingClients,
    close: () => opened.forEach(([, client]) => client.close()),
  };
}

/**
 * Clients of the services' gRPC APIs that test set-up and the factories use, each opened on first
 * use against the service of that name ("identity", "content", "collaboration", "publishing").
 */
export interface ServiceClients {
  readonly identity: IdentityClients;
  readonly spaces: PromiseClient<typeof SpaceServiceService>;
  readonly collections: PromiseClient<typeof CollectionServiceService>;
  readonly editing: PromiseClient<typeof EditingServiceService>;
  readonly revisions: PromiseClient<typeof RevisionServiceService>;
  readonly branches: PromiseClient<typeof BranchServiceService>;
  readonly changeRequests: PromiseClient<typeof ChangeRequestServiceService>;
  readonly comments: PromiseClient<typeof CommentServiceService>;
  /** Publishing's services, one client each. */
  readonly publishing: PublishingClients;
}

export interface ClosableServiceClients extends ServiceClients {
  /** Closes every client opened so far. */
  close(): void;
}

/** Clients on the addresses `address` gives for a service name (it throws for a service not started). */
export function serviceClients(address: (service: string) => string): ClosableServiceClients {
  const opened: { close(): void }[] = [];
  // Opened lazily: a harness without collaboration never needs its address.
  const lazy = <Def extends ServiceDefinition>(service: string, definition: Def) => {
    let client: PromiseClient<Def> | undefined;
    return () => {
      if (!client) {
        client = testClient(definition, address(service));
        opened.push(client);
      }
      return client;
    };
  };
  let identityClients: IdentityClients | undefined;
  const identity = () => {
    if (!identityClients) {
      identityClients = testIdentityClients(address("identity"));
      opened.push(identityClients);
    }
    return identityClients;
  };
  const spaces = lazy("content", SpaceServiceService);
  const collections = lazy("content", CollectionServiceService);
  const editing = lazy("content", EditingServiceService);
  const revisions = lazy("content", RevisionServiceService);
  const branches = lazy("content", BranchServiceService);
  const changeRequests = lazy("collaboration", ChangeRequestServiceService);
  const comments = lazy("collaboration", CommentServiceService);
  const publishing = lazyClients(PUBLISHING_SERVICES, (definition) => lazy("publishing", definition)());
  return {
    get identity() {
      return identity();
    },
    get spaces() {
      return spaces();
    },
    get collections() {
      return collections();
    },
    get editing() {
      return editing();
    },
    get revisions() {
      return revisions();
    },
    get branches() {
      return branches();
    },
    get changeRequests() {
      return changeRequests();
    },
    get comments() {
      return comments();
    },
    publishing,
    close: () => {
      for (const client of opened.splice(0)) client.close();
    },
  };
}
