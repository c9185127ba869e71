import type { MergeRule } from "../../domain/merge-rules.js";
import type { OrganizationPermissions } from "../../domain/permissions.js";
import type { Role } from "../../domain/roles.js";

/**
 * What the use cases answer: plain shapes that grpc/mappers.ts maps to messages. Entities satisfy
 * them, and so do the rows of the hot-path queries (hot-path-queries.ts) that skip ORM hydration.
 */
export interface UserData {
  id: string;
  email: string;
  displayName: string;
  photoUrl?: string | null;
  /** Set for the principal of an integration installation (not a person); null or absent otherwise. */
  integrationInstallationId?: string | null;
}

/** A session as the use cases answer it: what the client is told (never the secret's hash). */
export interface SessionView {
  id: string;
  method: string;
  csrfToken: string;
  createdAt: Date;
  /** Its idle expiry, never after its absolute expiry. */
  expiresAt: Date;
}

/** Who a bearer token or a session's secret authenticates. */
export interface AuthenticatedPrincipal {
  user: UserData;
  /** The token's id, or the session's. */
  tokenId: string;
  /** When the token stops working (a session: its idle expiry now); null when it does not expire. */
  expiresAt: Date | null;
  /** The session, when the secret was a session's. */
  session?: SessionView;
}

export interface OrganizationData {
  id: string;
  title: string;
  emailDomains: string[];
  hostname?: string | null;
  type: string;
  useCase?: string | null;
  communityType?: string | null;
  defaultRole?: Role | null;
  defaultContentSiteId?: string | null;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  /** How members may sign in (Imprint's); absent in public views. */
  signInMethods?: string[];
  plan: string;
  logoUrl?: string | null;
  customHostname?: string | null;
  trialStatus: string;
  mergeRulesType: string;
  /** The rules when mergeRulesType is "rules"; absent or null otherwise. */
  mergeRules?: MergeRule[] | null;
  createdAt: Date;
}

export interface MemberData {
  user: UserData;
  role?: Role | null;
  disabled: boolean;
  sso: boolean;
  joinedAt: Date;
  lastSeenAt?: Date | null;
  /** How many teams of the organization the member belongs to (0 when not counted). */
  teams?: number;
}

/** An organization with what the caller may do on it. */
export interface OrganizationView {
  organization: OrganizationData;
  permissions: OrganizationPermissions;
}
