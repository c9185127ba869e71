import type { EntityManager } from "@mikro-orm/postgresql";
import type { Member, MemberRole } from "@imprint/proto/identity/v1";
import type { MemberSort } from "@imprint/proto/identity/v1/members";
import { isId, queryRows, sql, type PageRequestLike } from "@imprint/runtime";
import { siteLevel, type ApplicableGrant, type Level, type SiteLevel } from "../../domain/site-permission.js";
import type { UseCaseDeps } from "../../deps.js";
import { callerMessage, organizationLevel, requireSiteCaller, type CallerInput } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface ListSitePermissionsAggregateInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  page: PageRequestLike | undefined;
  /** identity's SortOrder. */
  order: number;
  /** Only members with this organization role (MEMBER_ROLE_GUEST: guests; unspecified: all). */
  role: MemberRole;
  search: string;
  sort: MemberSort;
  /** Only members of this team ("" for all). */
  teamId: string;
}

/** A member who can access the site, their level there and its origin. */
export interface SitePermissionAggregateView extends SiteLevel {
  member: Member;
  level: Level;
}

/**
 * Everyone who can access the site and why (GitBook's listPermissionsAggregateInSite): a page of
 * the organization's members as identity lists them to the caller (its filters and order), each
 * with their level on the site, the best of their organization role, their own grant and their
 * teams' grants, and where it comes from. Guests without a grant (and, with `teamId`, members not in
 * the team) are left out of the page, which then holds fewer items; the page token is identity's.
 */
export async function listSitePermissionsAggregate(
  em: EntityManager,
  input: ListSitePermissionsAggregateInput,
  deps: UseCaseDeps,
): Promise<{ items: SitePermissionAggregateView[]; nextPageToken: string; totalCount: number }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const answer = await deps.identity.members.listMembers({
    caller: callerMessage(access.caller),
    organizationId: access.organizationId,
    page: input.page ? { pageSize: input.page.pageSize ?? 0, pageToken: input.page.pageToken ?? "" } : undefined,
    order: input.order,
    role: input.role,
    search: input.search,
    sort: input.sort,
  });
  const members = answer.members.filter((member) => member.user && isId(member.user.id));
  const userIds = members.map((member) => member.user!.id);
  const grants = new Map<string, ApplicableGrant[]>(userIds.map((id) => [id, []]));
  const inTeam = new Set<string>();
  if (userIds.length > 0) {
    const ids = `{${userIds.join(",")}}`;
    const rows = await queryRows(
      em,
      sql<{ user_id: string; level: Level; team_id: string | null }>`select user_id, level, null::uuid as team_id from site_user_grants
        where site_id = ${site.id} and user_id = any(${ids}::uuid[])
       union all
       select m.user_id, g.level, g.team_id from site_team_grants g join team_memberships m on m.team_id = g.team_id and m.present
        where g.site_id = ${site.id} and m.user_id = any(${ids}::uuid[])`,
    );
    for (const row of rows) grants.get(row.user_id)?.push({ level: row.level, teamId: row.team_id });
    if (input.teamId) {
      const members = isId(input.teamId)
        ? await queryRows(
            em,
            sql<{ user_id: string }>`select user_id from team_memberships where team_id = ${input.teamId} and present and user_id = any(${ids}::uuid[])`,
          )
        : [];
      for (const row of members) inTeam.add(row.user_id);
    }
  }
  const items = members.flatMap((member): SitePermissionAggregateView[] => {
    const userId = member.user!.id;
    if (input.teamId && !inTeam.has(userId)) return [];
    const own = organizationLevel({ ...access, role: member.role });
    const { level, origin } = siteLevel(own, grants.get(userId) ?? []);
    return level ? [{ member, level, origin }] : [];
  });
  return { items, nextPageToken: answer.page?.nextPageToken ?? "", totalCount: answer.page?.totalCount ?? items.length };
}
