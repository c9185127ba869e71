import { randomUUID } from "node:crypto";
import { type EntityManager } from "@mikro-orm/postgresql";
import { findOwned, recordEvent } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { pathFromTitle, SiteSpace } from "../../domain/site-space.js";
import { siteSectionCreated } from "../../events.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { type OrganizationCaller } from "./access.js";
import { siteSpaceViews, type SiteSpaceView, type SpaceSource } from "./site-spaces.js";
import { nextTopLevelPosition } from "./top-level.js";

export interface SectionView {
  section: SiteSection;
  site: Site;
  isDefault: boolean;
  /** Its visible site-spaces, in order. */
  siteSpaces: SiteSpaceView[];
  /** The share key published URLs go through ("" for none). */
  shareKey: string;
}

/** A section of the site; another site's (or none) is "Site section not found". */
export async function findSiteSection(em: EntityManager, site: Site, sectionId: string, options: { lock?: boolean } = {}): Promise<SiteSection> {
  return findOwned(em, SiteSection, { siteId: site.id }, sectionId, options);
}

/** The site's default section as readers see it: its own, else its first; null without sections. */
export function effectiveDefaultSectionId(site: Site, sections: SiteSection[]): string | null {
  if (site.defaultSectionId && sections.some((section) => section.id === site.defaultSectionId)) return site.defaultSectionId;
  return sections[0]?.id ?? null;
}

/** Sections (in the order given) with their visible site-spaces as the caller sees them (live ones only with `liveOnly`). */
export async function sectionViews(
  em: EntityManager,
  deps: SpaceSource,
  access: OrganizationCaller,
  site: Site,
  sections: SiteSection[],
  shareKey = "",
  options: { liveOnly?: boolean } = {},
): Promise<SectionView[]> {
  const all = await em.find(SiteSection, { siteId: site.id }, { orderBy: { position: "asc", id: "asc" } });
  const defaultId = effectiveDefaultSectionId(site, all);
  const ids = sections.map((section) => section.id);
  const where = { siteId: site.id, sectionId: { $in: ids }, spaceDeleted: false, ...(options.liveOnly ? { draft: false } : {}) };
  const siteSpaces = ids.length > 0 ? await em.find(SiteSpace, where, { orderBy: { position: "asc", id: "asc" } }) : [];
  const views = await siteSpaceViews(em, deps, access, site, siteSpaces);
  return sections.map((section) => ({
    section,
    site,
    isDefault: section.id === defaultId,
    siteSpaces: views.filter((view) => view.siteSpace.sectionId === section.id).map((view) => ({ ...view, shareKey })),
    shareKey,
  }));
}

/** A path for a new section: the base made unique among the site's sections with -2, -3, … */
export async function freeSectionPath(em: EntityManager, siteId: string, base: string): Promise<string> {
  const taken = new Set((await em.find(SiteSection, { siteId }, { fields: ["path"] })).map((section) => section.path));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A new empty section at the end of the site's top level (the site's default when it is its first); records `site_section.created`. */
export async function newSection(
  tx: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  actor: CallerInput,
  site: Site,
  title: string,
  icon: string | null,
  draft = false,
): Promise<SiteSection> {
  const position = await nextTopLevelPosition(tx, site.id);
  const section = tx.create(SiteSection, {
    id: randomUUID(),
    siteId: site.id,
    organizationId: site.organizationId,
    title,
    path: await freeSectionPath(tx, site.id, pathFromTitle(title)),
    description: "",
    icon,
    condition: "",
    position,
    sectionGroupId: null,
    defaultSiteSpaceId: null,
    draft,
    createdAt: deps.clock(),
  });
  if (!site.defaultSectionId) site.defaultSectionId = section.id;
  recordEvent(tx, siteSectionCreated, {
    organizationId: site.organizationId,
    actor,
    payload: { siteId: site.id, sectionId: section.id, title, path: section.path, default: site.defaultSectionId === section.id },
  });
  await tx.flush();
  return section;
}
