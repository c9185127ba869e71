import type { EntityManager } from "@mikro-orm/postgresql";
import {
  encodePageToken,
  queryRows,
  readPageRequest,
  sql,
  toDate,
  toDateOrNull,
  type KeyType,
  type Page,
  type PageRequestLike,
  type SortDirection,
} from "@imprint/runtime";
import type { MergeRule } from "../../domain/merge-rules.js";
import type { Role } from "../../domain/roles.js";
import type { MemberData, OrganizationData, UserData } from "./views.js";

/**
 * Read-only queries of the hot paths (AuthenticateToken, GetOrganization, GetMember, ListMembers'
 * membership check and its page), written as single indexed SQL statements whose rows are
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
            o.custom_hostname, o.trial_status, o.merge_rules_type, o.merge_rules, o.sign_in_methods, o.created_at
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
      signInMethods: row.sign_in_methods as string[],
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
export async function findEnabledMembershipSso(
  em: EntityManager,
  organizationId: string,
  userId: string,
): Promise<{ role: Role | null; sso: boolean; signInMethods: string[] } | null> {
  const [row] = await queryRows(
    em,
    sql<Row>`select m.role, o.sso, o.sign_in_methods from members m join organizations o on o.id = m.organization_id where m.organization_id = ${organizationId} and m.user_id = ${userId} and not m.disabled`,
  );
  return row ? { role: (row.role as Role | null) ?? null, sso: Boolean(row.sso), signInMethods: row.sign_in_methods as string[] } : null;
}

/** How ListMembers sorts: the column (then the member's id), and the key type its page tokens carry. */
const MEMBER_SORT_COLUMNS = {
  joinedAt: { column: sql`m.joined_at`, type: sql`timestamptz`, key: { kind: "date" } },
  lastSeenAt: { column: sql`m.last_seen_at`, type: sql`timestamptz`, key: { kind: "date", nullable: true } },
  name: { column: sql`m.sort_name`, type: sql`varchar`, key: { kind: "string" } },
} as const satisfies Record<string, { column: unknown; type: unknown; key: KeyType }>;

/** The entity field each sort pages on, which names its tokens (as entity-based pages did, so tokens stay valid). */
const MEMBER_SORT_FIELDS: Record<keyof typeof MEMBER_SORT_COLUMNS, string> = { joinedAt: "joinedAt", lastSeenAt: "lastSeenAt", name: "sortName" };

export interface MembersPageQuery {
  organizationId: string;
  sort: keyof typeof MEMBER_SORT_COLUMNS;
  direction: SortDirection;
  /** Only this role (null = guests); undefined = every role. */
  role: Role | null | undefined;
  /** A `containsPattern` matched against the user's name and e-mail; empty for none. */
  searchPattern: string;
  page: PageRequestLike | undefined;
}

/**
 * One page of an organization's members (people only, never installations' principals) with their
 * users and how many of the organization's teams each is in, in keyset order on the (organization,
 * sort key, id) indexes, and the total: two statements, no entity hydrated. Sorting by activity
 * lists only members who were active at least once.
 */
export async function findMembersPage(em: EntityManager, query: MembersPageQuery): Promise<Page<MemberData & { teams: number }>> {
  const sort = MEMBER_SORT_COLUMNS[query.sort];
  const fingerprint = `${MEMBER_SORT_FIELDS[query.sort]},id:${query.direction}`;
  const { pageSize, after } = readPageRequest(query.page, fingerprint, [sort.key, "uuid"]);
  const conditions = [sql`m.organization_id = ${query.organizationId}`, sql`u.integration_installation_id is null`];
  if (query.role === null) conditions.push(sql`m.role is null`);
  else if (query.role !== undefined) conditions.push(sql`m.role = ${query.role}`);
  if (query.sort === "lastSeenAt") conditions.push(sql`m.last_seen_at is not null`);
  if (query.searchPattern) conditions.push(sql`(u.display_name ilike ${query.searchPattern} or u.email ilike ${query.searchPattern})`);
  const matching = sql.join(conditions, sql` and `);
  const ascending = query.direction === "asc";
  const afterKey = after
    ? ascending
      ? sql` and (${sort.column}, m.id) > (${after[0]}::${sort.type}, ${after[1]}::uuid)`
      : sql` and (${sort.column}, m.id) < (${after[0]}::${sort.type}, ${after[1]}::uuid)`
    : sql``;
  const order = ascending ? sql`${sort.column} asc, m.id asc` : sql`${sort.column} desc, m.id desc`;
  const [rows, [counted]] = await Promise.all([
    queryRows(
      em,
      sql<Row>`select m.id as member_id, m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, m.sort_name, ${USER_COLUMNS},
              (select count(*) from team_members tm join teams t on t.id = tm.team_id
                where t.organization_id = m.organization_id and tm.user_id = m.user_id) as teams
         from members m join users u on u.id = m.user_id
        where ${matching}${afterKey}
        order by ${order}
        limit ${pageSize + 1}`,
    ),
    queryRows(em, sql<{ total: string }>`select count(*) as total from members m join users u on u.id = m.user_id where ${matching}`),
  ]);
  const items = rows.slice(0, pageSize).map((row) => ({
    user: userFromRow(row),
    role: row.role as Role | null,
    disabled: row.disabled as boolean,
    sso: row.sso as boolean,
    joinedAt: toDate(row.joined_at as string),
    lastSeenAt: toDateOrNull(row.last_seen_at as string | null),
    teams: Number(row.teams),
  }));
  const last = rows.length > pageSize ? rows[pageSize - 1] : undefined;
  const lastKey = (row: Row) =>
    query.sort === "name" ? (row.sort_name as string) : toDate((query.sort === "joinedAt" ? row.joined_at : row.last_seen_at) as string).toISOString();
  return {
    items,
    nextPageToken: last ? encodePageToken(fingerprint, [lastKey(last), last.member_id as string]) : "",
    totalCount: Number(counted?.total ?? 0),
  };
}
