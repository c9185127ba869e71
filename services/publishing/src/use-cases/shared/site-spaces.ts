import { randomUUID } from "node:crypto";
import { type EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError, findOwned, recordEvent } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { pathFromTitle, SiteSpace } from "../../domain/site-space.js";
import { siteSpaceCreated } from "../../events.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { callerMessage, isId, type OrganizationCaller } from "./access.js";
import { freePath, levelDefaults, nextPosition } from "./sites.js";

/** Content's BatchGetSpaces takes at most this many ids. */
const SPACES_PER_BATCH = 1000;

export interface SiteSpaceView {
  siteSpace: SiteSpace;
  space: Space;
  /** The default of its level (its section, or the site's root). */
  isDefault: boolean;
  site: Site;
  /** Its section's path ("" at the root). */
  sectionPath: string;
  /** The share key its published URL goes through ("" for none). */
  shareKey?: string;
}

/**
 * Adds `space` at the end of a level of the site (locked by the caller): `section`, or the root of
 * a site without sections; the level's default when it is its first.
 */
export async function appendSiteSpace(
  tx: EntityManager,
  deps: Pick<UseCaseDeps, "clock">,
  actor: CallerInput,
  site: Site,
  space: Space,
  section: SiteSection | null = null,
): Promise<SiteSpace> {
  const sectionId = section?.id ?? null;
  const siteSpace = tx.create(SiteSpace, {
    id: randomUUID(),
    siteId: site.id,
    organizationId: site.organizationId,
    sectionId,
    spaceId: space.id,
    path: await freePath(tx, site.id, sectionId, pathFromTitle(space.title)),
    condition: "",
    position: await nextPosition(tx, site.id, sectionId),
    createdAt: deps.clock(),
  });
  const level = section ?? site;
  if (!level.defaultSiteSpaceId) level.defaultSiteSpaceId = siteSpace.id;
  recordEvent(tx, siteSpaceCreated, {
    organizationId: site.organizationId,
    actor,
    payload: { siteId: site.id, siteSpaceId: siteSpace.id, spaceId: space.id, path: siteSpace.path, default: level.defaultSiteSpaceId === siteSpace.id },
  });
  await tx.flush();
  return siteSpace;
}

/**
 * A site-space of the site; another site's (or none) is "Site space not found", and so is one
 * whose space is deleted (hidden until restored) unless `hidden` is allowed.
 */
export async function findSiteSpace(
  em: EntityManager,
  site: Site,
  siteSpaceId: string,
  options: { lock?: boolean; hidden?: boolean } = {},
): Promise<SiteSpace> {
  return findOwned(em, SiteSpace, options.hidden ? { siteId: site.id } : { siteId: site.id, spaceDeleted: false }, siteSpaceId, { lock: options.lock });
}

/**
 * The site-spaces with their spaces as the caller sees them (one BatchGetSpaces of content,
 * however many there are). A site-space whose space the caller cannot read (deleted, or
 * restricted) is left out; each is marked default as its level's default is seen by readers
 * (levelDefaults).
 */
/** What views read of content: the spaces of site-spaces, in batches. */
export interface SpaceSource {
  spaces: Pick<UseCaseDeps["spaces"], "batchGetSpaces">;
}

/**
 * Content's spaces of the site's site-spaces (and `also`), read before a write commits, as a
 * SpaceSource for the views of its answer: they then ask content only, on a best effort, for a
 * space added meanwhile (left out of the answer if content cannot say), so that an outage of
 * content fails a write before it is applied, never after.
 */
export async function readSpacesOfSite(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "spaces">,
  access: OrganizationCaller,
  siteId: string,
  also: readonly Space[] = [],
): Promise<SpaceSource> {
  const known = new Map<string, Space>(also.map((space) => [space.id, space]));
  const rows = isId(siteId) ? await em.fork().find(SiteSpace, { siteId, organizationId: access.organizationId }, { fields: ["spaceId"] }) : [];
  const spaceIds = [...new Set(rows.map((row) => row.spaceId))].filter((id) => !known.has(id));
  const caller = callerMessage(access.caller);
  for (let start = 0; start < spaceIds.length; start += SPACES_PER_BATCH) {
    const { spaces } = await deps.spaces.batchGetSpaces({
      caller,
      organizationId: access.organizationId,
      spaceIds: spaceIds.slice(start, start + SPACES_PER_BATCH),
    });
    for (const space of spaces) known.set(space.id, space);
  }
  return {
    spaces: {
      batchGetSpaces: async (request, options) => {
        const missing = request.spaceIds.filter((id) => !known.has(id));
        const fetched =
          missing.length === 0
            ? []
            : await deps.spaces.batchGetSpaces({ ...request, spaceIds: missing }, options).then(
                (answer) => answer.spaces,
                () => [],
              );
        return { spaces: [...request.spaceIds.flatMap((id) => (known.has(id) ? [known.get(id)!] : [])), ...fetched] };
      },
    },
  };
}

export async function siteSpaceViews(
  em: EntityManager,
  deps: SpaceSource,
  access: OrganizationCaller,
  site: Site,
  siteSpaces: SiteSpace[],
): Promise<SiteSpaceView[]> {
  const defaults = await levelDefaults(em, site.id);
  const sectionIds = [...new Set(siteSpaces.map((siteSpace) => siteSpace.sectionId).filter((id): id is string => id !== null && id !== undefined))];
  const sections = new Map((sectionIds.length > 0 ? await em.find(SiteSection, { id: { $in: sectionIds } }) : []).map((section) => [section.id, section.path]));
  const spaceIds = [...new Set(siteSpaces.map((siteSpace) => siteSpace.spaceId))];
  const caller = callerMessage(access.caller);
  const batches: string[][] = [];
  for (let start = 0; start < spaceIds.length; start += SPACES_PER_BATCH) batches.push(spaceIds.slice(start, start + SPACES_PER_BATCH));
  const answers = await Promise.all(batches.map((batch) => deps.spaces.batchGetSpaces({ caller, organizationId: site.organizationId, spaceIds: batch })));
  const spaces = new Map<string, Space>(answers.flatMap((answer) => answer.spaces.map((space) => [space.id, space] as const)));
  const views: SiteSpaceView[] = [];
  siteSpaces.forEach((siteSpace) => {
    const space = spaces.get(siteSpace.spaceId);
    if (!space?.permissions?.view || space.deletedAt) return;
    const level = siteSpace.sectionId ?? "";
    views.push({ siteSpace, space, isDefault: defaults.get(level) === siteSpace.id, site, sectionPath: sections.get(level) ?? "" });
  });
  return views;
}

/** A section of the site; another site's (or none) is refused naming `field` (a reference in a body). */
export async function findSection(em: EntityManager, site: Site, sectionId: string, field: string): Promise<SiteSection> {
  const found = isId(sectionId) ? await em.findOne(SiteSection, { id: sectionId, siteId: site.id }) : null;
  if (!found) throw AppError.invalidArgument(`${field}: no section ${sectionId} in this site`);
  return found;
}

/** The section new content goes to when none is named: the default one, else the first; null without sections. */
export async function defaultSection(em: EntityManager, site: Site): Promise<SiteSection | null> {
  if (site.defaultSectionId) {
    const found = await em.findOne(SiteSection, { id: site.defaultSectionId, siteId: site.id });
    if (found) return found;
  }
  return em.findOne(SiteSection, { siteId: site.id }, { orderBy: { position: "asc", id: "asc" } });
}
