import { randomUUID } from "node:crypto";
import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { pathFromTitle, SiteSpace } from "../../domain/site-space.js";
import { recordPublishingEvent, siteSpaceCreated } from "../../events.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { callerMessage, isId, type OrganizationAccess } from "./access.js";
import { freePath, nextPosition } from "./sites.js";

export interface SiteSpaceView {
  siteSpace: SiteSpace;
  space: Space;
  isDefault: boolean;
  site: Site;
  /** The share key its published URL goes through ("" for none). */
  shareKey?: string;
}

/** Adds `space` at the end of the site (locked by the caller), the default when it is the first. */
export async function appendSiteSpace(tx: EntityManager, deps: Pick<UseCaseDeps, "clock">, actor: CallerInput, site: Site, space: Space): Promise<SiteSpace> {
  const siteSpace = tx.create(SiteSpace, {
    id: randomUUID(),
    siteId: site.id,
    organizationId: site.organizationId,
    spaceId: space.id,
    path: await freePath(tx, site.id, pathFromTitle(space.title)),
    condition: "",
    position: await nextPosition(tx, site.id),
    createdAt: deps.clock(),
  });
  if (!site.defaultSiteSpaceId) site.defaultSiteSpaceId = siteSpace.id;
  recordPublishingEvent(tx, deps, siteSpaceCreated, {
    organizationId: site.organizationId,
    actor,
    payload: { siteId: site.id, siteSpaceId: siteSpace.id, spaceId: space.id, path: siteSpace.path, default: site.defaultSiteSpaceId === siteSpace.id },
  });
  return siteSpace;
}

/**
 * A site-space of the site; another site's (or none) is "Site space not found", and so is one
 * whose space is deleted (hidden until restored) unless `hidden` is allowed.
 */
export async function findSiteSpace(em: EntityManager, site: Site, siteSpaceId: string, options: { lock?: boolean; hidden?: boolean } = {}): Promise<SiteSpace> {
  const where = options.hidden ? { id: siteSpaceId, siteId: site.id } : { id: siteSpaceId, siteId: site.id, spaceDeleted: false };
  const found = isId(siteSpaceId) ? await em.findOne(SiteSpace, where, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) : null;
  if (!found) throw AppError.notFound("Site space");
  return found;
}

/**
 * The site-spaces with their spaces as the caller sees them (content's GetSpace, concurrently).
 * A site-space whose space the caller cannot read (deleted, or restricted) is left out;
 * `defaultSiteSpaceId` is the site's default as readers see it (effectiveDefaults).
 */
export async function siteSpaceViews(
  deps: Pick<UseCaseDeps, "spaces">,
  access: OrganizationAccess,
  site: Site,
  siteSpaces: SiteSpace[],
  defaultSiteSpaceId: string | null,
): Promise<SiteSpaceView[]> {
  const caller = callerMessage(access.caller);
  const spaces = await Promise.all(
    siteSpaces.map(async (siteSpace) => {
      try {
        return (await deps.spaces.getSpace({ caller, spaceId: siteSpace.spaceId, shareKey: "" })).space;
      } catch (error) {
        if (error instanceof AppError && error.code === "not_found") return undefined;
        throw error;
      }
    }),
  );
  const views: SiteSpaceView[] = [];
  siteSpaces.forEach((siteSpace, index) => {
    const space = spaces[index];
    if (space?.permissions?.view && !space.deletedAt) views.push({ siteSpace, space, isDefault: defaultSiteSpaceId === siteSpace.id, site });
  });
  return views;
}
