import { touchSpaces } from "../shared/publications.js";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError, recordEvent } from "@imprint/runtime";
import { SiteSpace, validateCondition, validatePath } from "../../domain/site-space.js";
import { siteSpaceUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireOrganizationRole } from "../shared/access.js";
import { findSiteSpace, siteSpaceViews, type SiteSpaceView, readSpacesOfSite } from "../shared/site-spaces.js";
import { findSite, requirePublishableSpace } from "../shared/sites.js";

export interface UpdateSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  path: string | undefined;
  /** "" removes the condition. */
  condition: string | undefined;
  spaceId: string | undefined;
  /** Draft (true) or live (false). */
  draft?: boolean | undefined;
}

/**
 * Changes a site-space's path (unique among its siblings), condition (checked as the reader will
 * evaluate it, refused with the position of the problem) or space (of the organization, readable
 * by the caller). Organization admins only. Records `site_space.updated` with what changed.
 */
export async function updateSiteSpace(em: EntityManager, input: UpdateSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  const path = input.path === undefined ? undefined : validatePath(input.path);
  const condition = input.condition === undefined ? undefined : validateCondition(input.condition);
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
  const newSpace: Space | undefined = input.spaceId === undefined ? undefined : await requirePublishableSpace(deps, access, input.spaceId, "spaceId");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId, newSpace ? [newSpace] : []);
  const { site, siteSpace } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSiteSpace(tx, found, input.siteSpaceId, { lock: true });
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (path !== undefined && path !== target.path) {
      if (await tx.count(SiteSpace, { siteId: found.id, sectionId: target.sectionId ?? null, path, id: { $ne: target.id } }))
        throw AppError.invalidArgument(`path: "${path}" is already used by another site-space at this level`);
      changes.path = { from: target.path, to: path };
      target.path = path;
    }
    if (condition !== undefined && condition !== target.condition) {
      changes.condition = { from: target.condition || null, to: condition || null };
      target.condition = condition;
    }
    if (input.draft !== undefined && input.draft !== target.draft) {
      changes.draft = { from: target.draft, to: input.draft };
      target.draft = input.draft;
    }
    if (newSpace && newSpace.id !== target.spaceId) {
      changes.spaceId = { from: target.spaceId, to: newSpace.id };
      touchSpaces(tx, [target.spaceId]);
      target.spaceId = newSpace.id;
    }
    if (Object.keys(changes).length > 0) {
      recordEvent(tx, siteSpaceUpdated, {
        organizationId: found.organizationId,
        actor: access.caller,
        payload: { siteId: found.id, siteSpaceId: target.id, spaceId: target.spaceId, changedFields: Object.keys(changes), changes },
      });
    }
    return { site: found, siteSpace: target };
  });
  const [view] = await siteSpaceViews(em, views, access, site, [siteSpace]);
  if (!view) throw AppError.notFound("Site space");
  return view;
}
