import { raw, type EntityManager, type RawQueryFragment } from "@mikro-orm/postgresql";
import {
  AppError,
  callerMessage,
  isId,
  queryRows,
  requireCaller,
  requireOrganizationRole,
  roleName,
  sql,
  type CallerInput,
  type OrganizationCaller,
} from "@imprint/runtime";
import { MemberRole } from "@imprint/proto/identity/v1";
import { siteLevel, type ApplicableGrant, type Level, type SiteLevel } from "../../domain/site-permission.js";

/**
 * The caller and organization checks every context shares, from the runtime, and the site check
 * on top of them (docs/permissions.md, "Sites"): a caller's level on a site is the best of their
 * organization role and the grants that reach them (their own, their teams'); members with a role
 * see every site, guests only those they are granted; changing a site needs the admin level on it.
 */
export { callerMessage, isId, requireCaller, requireOrganizationRole, type CallerInput, type OrganizationCaller };

/** What a call needs on a site: to see it ("member": any level), or the admin level. */
export type SiteNeed = "member" | "admin";

/** A caller admitted to the organization (guests too), whose level on the site is checked when the site is found. */
export interface SiteCaller extends OrganizationCaller {
  need: SiteNeed;
  /** What the call does, for "Only site admins can <action>". */
  action: string;
}

/**
 * The organization check of every call about one site (or the organization's sites): anyone who
 * cannot see the organization gets "Organization not found"; guests pass, their level on the site
 * (`requireSiteLevel`, which findSite runs) decides. So one place answers every site read and write.
 */
export async function requireSiteCaller(
  deps: Parameters<typeof requireOrganizationRole>[0],
  caller: CallerInput | undefined,
  organizationId: string,
  need: SiteNeed,
  action = "change sites",
): Promise<SiteCaller> {
  const access = await requireOrganizationRole(deps, caller, organizationId, "guest");
  return { ...access, need, action };
}

/** The caller's organization role as a level on its sites: none for a guest. */
export function organizationLevel(access: OrganizationCaller): Level | null {
  if (access.role === MemberRole.MEMBER_ROLE_GUEST) return null;
  return roleName(access.role) ?? null;
}

/**
 * The caller's level on the site, checked against what the call needs: a caller who cannot see the
 * site gets "Site not found" (like a site that does not exist), one who sees it without the admin
 * level a call needs gets permission_denied.
 */
export async function requireSiteLevel(em: EntityManager, access: SiteCaller, siteId: string): Promise<SiteLevel> {
  // Grants only add: when the organization role is enough, no grant needs reading.
  const own = organizationLevel(access);
  if (own === "admin" || (own !== null && access.need === "member")) return { level: own, origin: { kind: "organization" } };
  const level = (await siteLevels(em, access, [siteId])).get(siteId) ?? { level: null, origin: { kind: "organization" } };
  if (level.level === null) throw AppError.notFound("Site");
  if (access.need === "admin" && level.level !== "admin") throw AppError.permissionDenied(`Only site admins can ${access.action}`);
  return level;
}

/** The caller's level on each of these sites (one query for the grants; an organization admin needs none). */
export async function siteLevels(em: EntityManager, access: OrganizationCaller, siteIds: readonly string[]): Promise<Map<string, SiteLevel>> {
  const own = organizationLevel(access);
  const ids = siteIds.filter(isId);
  const grants = new Map<string, ApplicableGrant[]>(ids.map((id) => [id, []]));
  if (own !== "admin" && ids.length > 0 && isId(access.caller.userId)) {
    const rows = await queryRows(
      em,
      sql<{ site_id: string; level: Level; team_id: string | null }>`select site_id, level, null::uuid as team_id from site_user_grants
        where site_id = any(${uuidArray(ids)}::uuid[]) and user_id = ${access.caller.userId}
       union all
       select g.site_id, g.level, g.team_id from site_team_grants g join team_memberships m on m.team_id = g.team_id and m.present
        where g.site_id = any(${uuidArray(ids)}::uuid[]) and m.user_id = ${access.caller.userId}`,
    );
    for (const row of rows) grants.get(row.site_id)?.push({ level: row.level, teamId: row.team_id });
  }
  return new Map(ids.map((id) => [id, siteLevel(own, grants.get(id) ?? [])]));
}

/**
 * The condition on sites' ids a list adds for the caller: none for a member with a role (they see
 * every site of the organization); for a guest, the sites granted to them or to one of their teams.
 */
export function visibleSitesFilter(access: OrganizationCaller): { id: { $in: RawQueryFragment } } | null {
  if (organizationLevel(access) !== null) return null;
  const userId = access.caller.userId;
  return {
    id: {
      $in: raw(
        `select site_id from site_user_grants where user_id = ? union select g.site_id from site_team_grants g join team_memberships m on m.team_id = g.team_id and m.present where m.user_id = ?`,
        [userId, userId],
      ),
    },
  };
}

/** A PostgreSQL array literal of uuids, for one `::uuid[]` parameter (checked ids need no escaping). */
function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(",")}}`;
}
