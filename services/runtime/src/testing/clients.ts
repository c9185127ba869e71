import type { ServiceDefinition } from "@grpc/grpc-js";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { CommentServiceService } from "@imprint/proto/collaboration/v1/comments";
import { BranchServiceService } from "@imprint/proto/content/v1/branches";
import { CollectionServiceService } from "@imprint/proto/content/v1/collections";
import { EditingServiceService } from "@imprint/proto/content/v1/editing";
import { RevisionServiceService } from "@imprint/proto/content/v1/revisions";
import { SpaceServiceService } from "@imprint/proto/content/v1/spaces";
import { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import type { PromiseClient } from "../grpc/client.js";
import type { IdentityClients } from "../access/identity-clients.js";
import { testClient, testIdentityClients } from "./support.js";

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
  readonly sites: PromiseClient<typeof SiteServiceService>;
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
  const sites = lazy("publishing", SiteServiceService);
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
    get sites() {
      return sites();
    },
    close: () => {
      for (const client of opened.splice(0)) client.close();
    },
  };
}
