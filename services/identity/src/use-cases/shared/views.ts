import type { Role } from "./roles.js";

/**
 * Plain shapes of what the transports map to messages. Entities satisfy them, and so do the rows
 * of the hot-path queries (use-cases/shared/hot-path-queries.ts) that skip ORM hydration.
 */
export interface UserData {
  id: string;
  email: string;
  displayName: string;
  photoUrl?: string | null;
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
  plan: string;
  logoUrl?: string | null;
  customHostname?: string | null;
  trialStatus: string;
  mergeRulesType: string;
  createdAt: Date;
}

export interface MemberData {
  user: UserData;
  role?: Role | null;
  disabled: boolean;
  sso: boolean;
  joinedAt: Date;
  lastSeenAt?: Date | null;
}
