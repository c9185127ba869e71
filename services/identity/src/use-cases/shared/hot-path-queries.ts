import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql, toDate, toDateOrNull } from "@imprint/runtime";
import type { MergeRule } from "../../domain/merge-rules.js";
import type { Role } from "../../domain/roles.js";
import type { MemberData, OrganizationData, UserData } from "./views.js";

/**
 * Read-only queries of the hot paths (AuthenticateToken, GetOrganization, GetMember, and the
 * membership check of ListMembers), written as single indexed SQL statements whose rows are
 * mapped by hand: skipping the ORM's hydration and identity map makes these calls several times
 * cheaper, which the gateway's throughput target needs. Writes always go through entities.
 * Column names follow the entities in src/domain (snake_case); the integration tests cover them.
 */

type Row = Record<string, unknown>;

const USER_COLUMNS = sql`u.id as user_id, u.email as user_email, u.display_name as user_display_name, u.photo_url as user_photo_url,
  u.integration_installation_id as user_integration_installation_id`;

function userFromRow(row: Row): UserData {
  return {
    id: row.user_id as string,
    email: row.user_email as string,
    displayName: row.user_display_name as string,
    photoUrl: row.user_photo_url as string | null,
    integrationInstallationId: row.user_integration_installation_id as string | null,
  };
}

export interface TokenPrincipalRow {
  tokenId: string;
  revokedAt: Date | null;
  /** When a token issued through SSO stops working; null for tokens that do not expire. */
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  user: UserData;
}

/** The token with this hash and its owner: one lookup on the unique hash index. */
export async function findTokenByHash(em: EntityManager, tokenHash: string): Promise<TokenPrincipalRow | null> {
  const [row] = await queryRows(
    em,
    sql<Row>`select t.id as token_id, t.revoked_at, t.expires_at, t.last_used_at, ${USER_COLUMNS}
       from api_tokens t join users u on u.id = t.user_id
      where t.token_hash = ${tokenHash}`,
  );
  if (!row) return null;
  return {
    tokenId: row.token_id as string,
    revokedAt: toDateOrNull(row.revoked_at as string | null),
    expiresAt: toDateOrNull(row.expires_at as string | null),
    lastUsedAt: toDateOrNull(row.last_used_at as string | null),
    user: userFromRow(row),
  };
}

export interface MembershipWithOrganization {
  role: Role | null;
  organization: OrganizationData;
}

/** The user's enabled membership with its organization: one lookup on the (organization, user) unique index. */
export async function findEnabledMembershipWithOrganization(
  em: EntityManager,
  organizationId: string,
  userId: string,
): Promise<MembershipWithOrganization | null> {
  const [row] = await queryRows(
    em,
    sql<Row>`select m.role as member_role, o.id, o.title, o.email_domains, o.hostname, o.type, o.use_case, o.community_type,
            o.default_role, o.default_content_site_id, o.sso, o.ai, o.invite_links, o.plan, o.logo_url,
            o.custom_hostname, o.trial_status, o.merge_rules_type, o.merge_rules, o.created_at
       from members m join organizations o on o.id = m.organization_id
      where m.organization_id = ${organizationId} and m.user_id = ${userId} and not m.disabled`,
  );
  if (!row) return null;
  return {
    role: row.member_role as Role | null,
    organization: {
      id: row.id as string,
      title: row.title as string,
      emailDomains: row.email_domains as string[],
      hostname: row.hostname as string | null,
      type: row.type as string,
      useCase: row.use_case as string | null,
      communityType: row.community_type as string | null,
      defaultRole: row.default_role as Role | null,
      defaultContentSiteId: row.default_content_site_id as string | null,
      sso: row.sso as boolean,
      ai: row.ai as boolean,
      inviteLinks: row.invite_links as boolean,
      plan: row.plan as string,
      logoUrl: row.logo_url as string | null,
      customHostname: row.custom_hostname as string | null,
      trialStatus: row.trial_status as string,
      mergeRulesType: row.merge_rules_type as string,
      mergeRules: row.merge_rules as MergeRule[] | null,
      createdAt: toDate(row.created_at as string),
    },
  };
}

/**
 * Memberships of the given users in one organization, with their users: one index range read.
 * Installation principals are included (their users say so); callers that list members leave them out.
 */
export async function findMembersOfUsers(em: EntityManager, organizationId: string, userIds: string[]): Promise<MemberData[]> {
  if (userIds.length === 0) return [];
  const rows = await queryRows(
    em,
    sql<Row>`select m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, ${USER_COLUMNS}
       from members m join users u on u.id = m.user_id
      where m.organization_id = ${organizationId} and m.user_id in (${sql.join(userIds)})`,
  );
  return rows.map((row) => ({
    user: userFromRow(row),
    role: row.role as Role | null,
    disabled: row.disabled as boolean,
    sso: row.sso as boolean,
    joinedAt: toDate(row.joined_at as string),
    lastSeenAt: toDateOrNull(row.last_seen_at as string | null),
  }));
}

/** The user's enabled membership of the organization: its role and whether the organization requires SSO; null when none. */
export async function findEnabledMembershipSso(em: EntityManager, organizationId: string, userId: string): Promise<{ role: Role | null; sso: boolean } | null> {
  const [row] = await queryRows(
    em,
    sql<Row>`select m.role, o.sso from members m join organizations o on o.id = m.organization_id where m.organization_id = ${organizationId} and m.user_id = ${userId} and not m.disabled`,
  );
  return row ? { role: (row.role as Role | null) ?? null, sso: Boolean(row.sso) } : null;
}
