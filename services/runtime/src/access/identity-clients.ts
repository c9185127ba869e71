import { MemberServiceService } from "@imprint/proto/identity/v1/members";
import { OrganizationServiceService } from "@imprint/proto/identity/v1/organizations";
import { SamlServiceService } from "@imprint/proto/identity/v1/saml";
import { TeamServiceService } from "@imprint/proto/identity/v1/teams";
import { TokenServiceService } from "@imprint/proto/identity/v1/tokens";
import { UserServiceService } from "@imprint/proto/identity/v1/users";
import { createPromiseClient, type PromiseClient } from "../grpc/client.js";

/** Identity's gRPC services by resource, as every caller names them (`identity.members.getMembership`). */
export const IDENTITY_SERVICES = {
  organizations: OrganizationServiceService,
  users: UserServiceService,
  members: MemberServiceService,
  teams: TeamServiceService,
  saml: SamlServiceService,
  tokens: TokenServiceService,
} as const;

/** A client of each of identity's services, all on one connection per identity copy. */
export type IdentityClients = { readonly [Service in keyof typeof IDENTITY_SERVICES]: PromiseClient<(typeof IDENTITY_SERVICES)[Service]> } & {
  /** Closes every one of them. */
  close(): void;
};

/** Clients of identity's services at `address` (a setting such as IDENTITY_GRPC_ADDRESS). */
export function createIdentityClients(address: string, options: { defaultTimeoutMs?: number } = {}): IdentityClients {
  const channelDefinitions = Object.values(IDENTITY_SERVICES);
  const open = <Def extends (typeof channelDefinitions)[number]>(definition: Def) => createPromiseClient(definition, address, { ...options, channelDefinitions });
  const clients = {
    organizations: open(OrganizationServiceService),
    users: open(UserServiceService),
    members: open(MemberServiceService),
    teams: open(TeamServiceService),
    saml: open(SamlServiceService),
    tokens: open(TokenServiceService),
  };
  return { ...clients, close: () => Object.values(clients).forEach((client) => client.close()) };
}
