import { type EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError, executeStatement, findOwned, queryRows, sql } from "@imprint/runtime";
import { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import type { Level } from "../../domain/site-permission.js";
import { callerMessage, isId, requireSiteLevel, siteLevels, type OrganizationCaller, type SiteCaller } from "./access.js";
import { touchSite } from "./publications.js";

/** What the caller may do on a site (GitBook's SitePermissions): every level views, the admin level does everything. */
export interface SitePermissions {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

export interface SiteView {
  site: Site;
  /** Its visible site-spaces (those whose space is not deleted). */
  siteSpaces: number;
  /** Its default site-space as readers see it (see effectiveDefaults); null while it has none. */
  defaultSiteSpaceId: string | null;
  /** Its default section (its own, else its first); null while it has none. */
  defaultSiteSectionId: string | null;
  permissions: SitePermissions;
}

/** What a level on a site lets its holder do: every level views it, the admin level does everything. */
export function sitePermissions(level: Level | null): SitePermissions {
  const admin = level === "admin";
  return { view: true, access: true, edit: admin, create: admin, admin, installIntegration: admin, viewAdaptiveSchema: true, editAdaptiveSchema: admin };
}

/**
 * A site of the organization the caller may do what the call needs on (requireSiteLevel); another
 * organization's (or none, or one a guest is not granted) is "Site not found". Locking it is how
 * every change to a site or its structure starts, so a locked site's version moves (a change that
 * ends up changing nothing only costs its readers one fresh read).
 */
export async function findSite(em: EntityManager, access: SiteCaller, siteId: string, options: { lock?: boolean } = {}): Promise<Site> {
  await requireSiteLevel(em, access, siteId);
  const site = await findOwned(em, Site, { organizationId: access.organizationId }, siteId, options);
  if (options.lock) {
    site.version += 1;
    touchSite(em, site.id);
  }
  return site;
}

/** Moves the version of every site publishing one of these spaces (content changed what they show). */
export async function touchSitesOfSpaces(em: EntityManager, spaceIds: string[]): Promise<void> {
  if (spaceIds.length === 0) return;
  await executeStatement(
    em,
    sql`update sites set version = version + 1 where id in (select site_id from site_spaces where space_id = any(${uuidArray(spaceIds)}::uuid[]))`,
  );
}

/**
 * The default site-space of each site as readers see it: in its default section when it has
 * sections (the site's default section, else its first), at its root otherwise; the level's own
 * default while its space is not deleted, else the level's first visible site-space (none when it
 * has none). One query.
 */
export async function effectiveDefaults(em: EntityManager, siteIds: string[]): Promise<Map<string, string>> {
  const defaults = new Map<string, string>();
  if (siteIds.length === 0) return defaults;
  const rows = await queryRows(
    em,
    sql<{ site_id: string; id: string }>`select distinct on (ss.site_id) ss.site_id, ss.id
       from site_spaces ss join sites s on s.id = ss.site_id left join site_sections sec on sec.id = ss.section_id
      where ss.site_id = any(${uuidArray(siteIds)}::uuid[]) and not ss.space_deleted
        and ss.section_id is not distinct from coalesce(s.default_section_id, (select f.id from site_sections f where f.site_id = s.id order by f.position, f.id limit 1))
      order by ss.site_id, (ss.id = coalesce(sec.default_site_space_id, s.default_site_space_id)) desc, ss.position, ss.id`,
  );
  for (const row of rows) defaults.set(row.site_id, row.id);
  return defaults;
}

/**
 * The default site-space of every level of a site (its root, or each section: key "" or the
 * section's id) as readers see it: the level's own default while its space is not deleted, else
 * its first visible site-space.
 */
export async function levelDefaults(em: EntityManager, siteId: string): Promise<Map<string, string>> {
  const rows = await queryRows(
    em,
    sql<{ level: string; id: string }>`select distinct on (coalesce(ss.section_id, ss.site_id)) coalesce(ss.section_id::text, '') as level, ss.id
       from site_spaces ss join sites s on s.id = ss.site_id left join site_sections sec on sec.id = ss.section_id
      where ss.site_id = ${siteId} and not ss.space_deleted
      order by coalesce(ss.section_id, ss.site_id), (ss.id = coalesce(sec.default_site_space_id, s.default_site_space_id)) desc, ss.position, ss.id`,
  );
  return new Map(rows.map((row) => [row.level, row.id]));
}

/** A PostgreSQL array literal of uuids, for one `?::uuid[]` parameter (uuids need no escaping). */
function uuidArray(ids: string[]): string {
  return `{${ids.join(",")}}`;
}

/** Sites as the caller sees them, with their visible site-space counts and defaults (two queries for the page). */
export async function siteViews(em: EntityManager, access: OrganizationCaller, sites: Site[]): Promise<SiteView[]> {
  const counts = new Map<string, number>();
  const ids = sites.map((site) => site.id);
  if (sites.length > 0) {
    const rows = await queryRows(
      em,
      sql<{
        site_id: string;
        count: string;
      }>`select site_id, count(*) as count from site_spaces where site_id = any(${uuidArray(ids)}::uuid[]) and not space_deleted group by site_id`,
    );
    for (const row of rows) counts.set(row.site_id, Number(row.count));
  }
  const defaults = await effectiveDefaults(em, ids);
  const sections = ids.length > 0 ? await em.find(SiteSection, { siteId: { $in: ids } }, { orderBy: { position: "asc", id: "asc" } }) : [];
  const defaultSection = (site: Site) => {
    const own = sections.filter((section) => section.siteId === site.id);
    return own.find((section) => section.id === site.defaultSectionId)?.id ?? own[0]?.id ?? null;
  };
  const levels = await siteLevels(em, access, ids);
  return sites.map((site) => ({
    site,
    siteSpaces: counts.get(site.id) ?? 0,
    defaultSiteSpaceId: defaults.get(site.id) ?? null,
    defaultSiteSectionId: defaultSection(site),
    permissions: sitePermissions(levels.get(site.id)?.level ?? null),
  }));
}

export async function siteView(em: EntityManager, access: OrganizationCaller, site: Site): Promise<SiteView> {
  const [view] = await siteViews(em, access, [site]);
  return view!;
}

/**
 * A space a site may publish: one of the site's organization that the caller can read (content
 * decides). Anything else is refused naming the field: it is a reference in the request body.
 */
export async function requirePublishableSpace(deps: Pick<UseCaseDeps, "spaces">, access: OrganizationCaller, spaceId: string, field: string): Promise<Space> {
  if (!isId(spaceId)) throw AppError.invalidArgument(`${field}: must be the id of a space of this organization`);
  let space: Space | undefined;
  try {
    space = (await deps.spaces.getSpace({ caller: callerMessage(access.caller), spaceId, shareKey: "" })).space;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") space = undefined;
    else throw error;
  }
  if (!space || space.organizationId !== access.organizationId || !space.permissions?.view || space.deletedAt) {
    throw AppError.invalidArgument(`${field}: no space ${spaceId} in this organization`);
  }
  return space;
}

/** A path for a new site-space at a level of the site (a section, or the root): the base made unique with -2, -3, … */
export async function freePath(em: EntityManager, siteId: string, sectionId: string | null, base: string): Promise<string> {
  const taken = new Set(
    (await em.find(SiteSpace, { siteId, sectionId, path: { $like: `${base.replace(/[\\%_]/g, "\\$&")}%` } }, { fields: ["path"] })).map((s) => s.path),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The next position at the end of a level of the site (a section, or the root). */
export async function nextPosition(em: EntityManager, siteId: string, sectionId: string | null): Promise<number> {
  const [row] = await queryRows(
    em,
    sql<{
      next: number | null;
    }>`select coalesce(max(position) + 1, 0) as next from site_spaces where site_id = ${siteId} and section_id is not distinct from ${sectionId}`,
  );
  return Number(row?.next ?? 0);
}
