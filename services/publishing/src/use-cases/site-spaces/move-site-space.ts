import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { SiteSpace } from "../../domain/site-space.js";
import { siteSpaceMoved } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSiteSpace, siteSpaceViews, type SiteSpaceView, readSpacesOfSite } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";

export interface MoveSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  /** "" unless placing it before this sibling. */
  before: string;
  /** "" unless placing it after this sibling. */
  after: string;
  /** How errors name the before and after fields (those of moveSiteSpace by default). */
  fields?: { before: string; after: string };
}

/**
 * Moves a site-space before or after a sibling (same site, same section), or to the end when neither is
 * given (site admins only). Positions are renumbered 0, 1, 2, … Records `site_space.moved`.
 */
export async function moveSiteSpace(em: EntityManager, input: MoveSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  if (input.before && input.after) throw AppError.invalidArgument("position: give either before or after, not both");
  const fields = input.fields ?? { before: "position.before.siteSpace", after: "position.after.siteSpace" };
  const field = input.before ? fields.before : fields.after;
  const reference = input.before || input.after;
  if (reference && reference === input.siteSpaceId) throw AppError.invalidArgument(`${field}: cannot be the site-space being moved`);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
  const views = await readSpacesOfSite(em, deps, access, input.siteId);
  const { site, moved } = await deps.unitOfWork.run(em, async (tx) => {
    const found = await findSite(tx, access, input.siteId, { lock: true });
    const target = await findSiteSpace(tx, found, input.siteSpaceId);
    const siblings = (await tx.find(SiteSpace, { siteId: found.id, sectionId: target.sectionId ?? null }, { orderBy: { position: "asc", id: "asc" } })).filter(
      (s) => s.id !== target.id,
    );
    let index = siblings.length;
    if (reference) {
      const at = siblings.findIndex((s) => s.id === reference);
      if (at < 0) throw AppError.invalidArgument(`${field}: no site-space ${reference} next to this one (in its section, or at the site's root)`);
      index = input.before ? at : at + 1;
    }
    siblings.splice(index, 0, target);
    siblings.forEach((s, position) => {
      if (s.position !== position) s.position = position;
    });
    recordEvent(tx, siteSpaceMoved, {
      organizationId: found.organizationId,
      actor: access.caller,
      payload: { siteId: found.id, siteSpaceId: target.id, index },
    });
    return { site: found, moved: target };
  });
  const [view] = await siteSpaceViews(em, views, access, site, [moved]);
  if (!view) throw AppError.notFound("Site space");
  return view;
}
