import { InviteServiceService } from "@imprint/proto/identity/v1/invites";
import { MemberServiceService } from "@imprint/proto/identity/v1/members";
import { OrganizationServiceService } from "@imprint/proto/identity/v1/organizations";
import { OidcServiceService } from "@imprint/proto/identity/v1/oidc";
import { SamlServiceService } from "@imprint/proto/identity/v1/saml";
import { TeamServiceService } from "@imprint/proto/identity/v1/teams";
import { TokenServiceService } from "@imprint/proto/identity/v1/tokens";
import { SessionServiceService } from "@imprint/proto/identity/v1/sessions";
import { AuditServiceService } from "@imprint/proto/identity/v1/audit";
import { UserServiceService } from "@imprint/proto/identity/v1/users";
import { openUpstream, type UpstreamClients, type UpstreamSpec } from "../grpc/upstreams.js";

/** Identity's gRPC services by resource, as every caller names them (`identity.members.getMembership`). */
export const IDENTITY_SERVICES = {
  organizations: OrganizationServiceService,
  users: UserServiceService,
  members: MemberServiceService,
  invites: InviteServiceService,
  teams: TeamServiceService,
  saml: SamlServiceService,
  oidc: OidcServiceService,
  tokens: TokenServiceService,
  sessions: SessionServiceService,
  audit: AuditServiceService,
} as const;

/** A client of each of identity's services, all on one connection per identity copy, and `close()`. */
export type IdentityClients = UpstreamClients<typeof IDENTITY_SERVICES>;

/** Identity as an upstream of a service (`upstreams: { identity: identityUpstream(config.IDENTITY_GRPC_ADDRESS) }`). */
export function identityUpstream(address: string, options: { defaultTimeoutMs?: number } = {}): UpstreamSpec<typeof IDENTITY_SERVICES> {
  return { address, services: IDENTITY_SERVICES, defaultTimeoutMs: options.defaultTimeoutMs ?? 5_000 };
}

/** Clients of identity's services at `address`, outside a service (the admin CLI, tests). */
export function createIdentityClients(address: string, options: { defaultTimeoutMs?: number } = {}): IdentityClients {
  return openUpstream(identityUpstream(address, options));
}
