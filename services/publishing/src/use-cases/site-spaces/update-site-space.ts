import { touchSpaces } from "../shared/publications.js";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import { SiteSpace, validateCondition, validatePath } from "../../domain/site-space.js";
import { siteSpaceUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSiteSpace, siteSpaceViews, type SiteSpaceView, readSpacesOfSite } from "../shared/site-spaces.js";
import { findSite, requirePublishableSpace } from "../shared/sites.js";

const UPDATABLE_FIELDS = ["path", "condition", "space_id", "draft"] as const;

export interface UpdateSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  path: string;
  /** "" removes the condition. */
  condition: string;
  spaceId: string;
  /** Draft (true) or live (false). */
  draft: boolean;
}

/**
 * Changes a site-space's path (unique among its siblings), condition (checked as the reader will
 * evaluate it, refused with the position of the problem), space (of the organization, readable
 * by the caller) or draft state: the fields the mask names (none: the site-space as it is).
 * Organization admins only. Records `site_space.updated` with what changed.
 */
export async function updateSiteSpace(em: EntityManager, input: UpdateSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const path = fields.has("path") ? validatePath(input.path) : undefined;
  const condition = fields.has("condition") ? validateCondition(input.condition) : undefined;
  const draft = fields.has("draft") ? input.draft : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const newSpace: Space | undefined = fields.has("space_id") ? await requirePublishableSpace(deps, access, input.spaceId, "spaceId") : undefined;
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
    if (draft !== undefined && draft !== target.draft) {
      changes.draft = { from: target.draft, to: draft };
      target.draft = draft;
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
