import type { EntityManager } from "@mikro-orm/postgresql";
import type { Space } from "@imprint/proto/content/v1/spaces";
import { AppError } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { sectionTitleFrom, SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import type { UseCaseDeps } from "../../deps.js";
import { callerMessage, type CallerInput, requireSiteCaller, type SiteCaller } from "../shared/access.js";
import { newSection } from "../shared/sections.js";
import { appendSiteSpace, findSiteSpace, readSpacesOfSite, siteSpaceViews, type SiteSpaceView } from "../shared/site-spaces.js";
import { findSite } from "../shared/sites.js";
import { placeInLevel } from "../shared/top-level.js";

export interface DuplicateSiteSpaceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  siteSpaceId: string;
  /** The copy (and a new section for it) start as drafts. */
  draft: boolean;
}

/**
 * Duplicates the space a site-space publishes (content's DuplicateSpace, as the caller: it needs
 * to view the space and create where it lives) and publishes the copy on the site, as GitBook
 * does: when the site-space is the only one of its section, the copy gets a new section of its own
 * right after it (in the same group); otherwise it is added at the end of the site-space's level
 * (its section, or the root of a site without sections). Site admins only. Records
 * `site_space.created` (and `site_section.created`).
 *
 * The copy is made before publishing's transaction (content owns it); should that transaction
 * fail (the site-space was removed meanwhile, a concurrent repeat of the call ran first), the copy
 * is deleted again, so a failed duplication leaves no stray space in the organization.
 */
export async function duplicateSiteSpace(em: EntityManager, input: DuplicateSiteSpaceInput, deps: UseCaseDeps): Promise<SiteSpaceView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  const original = await findSiteSpace(em, await findSite(em, access, input.siteId), input.siteSpaceId);
  const caller = callerMessage(access.caller);
  const { space: copy } = await deps.spaces.duplicateSpace({ caller, spaceId: original.spaceId });
  if (!copy) throw new AppError("internal", "content answered DuplicateSpace without the copy");
  let placed: { site: Site; siteSpace: SiteSpace; views: Awaited<ReturnType<typeof readSpacesOfSite>> };
  try {
    // Content's spaces the answer shows are read before the commit: once saved, the answer asks content nothing more.
    const views = await readSpacesOfSite(em, deps, access, input.siteId, [copy]);
    placed = { ...(await deps.unitOfWork.run(em, (tx) => publishCopy(tx, input, access, copy, deps))), views };
  } catch (error) {
    await deps.spaces.deleteSpace({ caller, spaceId: copy.id }).catch(() => undefined);
    throw error;
  }
  const [view] = await siteSpaceViews(em, placed.views, access, placed.site, [placed.siteSpace]);
  if (!view) throw AppError.notFound("Site space");
  return view;
}

/** Publishes the copy next to the site-space it copies, in the caller's transaction (the site locked). */
async function publishCopy(
  tx: EntityManager,
  input: DuplicateSiteSpaceInput,
  access: SiteCaller,
  copy: Space,
  deps: UseCaseDeps,
): Promise<{ site: Site; siteSpace: SiteSpace }> {
  const site = await findSite(tx, access, input.siteId, { lock: true });
  const source = await findSiteSpace(tx, site, input.siteSpaceId);
  const section = source.sectionId ? await tx.findOneOrFail(SiteSection, { id: source.sectionId, siteId: site.id }) : null;
  const alone = section !== null && (await tx.count(SiteSpace, { siteId: site.id, sectionId: section.id, spaceDeleted: false })) === 1;
  let level = section;
  if (section && alone) {
    level = await newSection(tx, deps, access.caller, site, sectionTitleFrom(copy.title), section.icon ?? null, input.draft);
    await placeInLevel(tx, site.id, { kind: "section", entity: level }, section.sectionGroupId ?? null, { after: section.id });
  }
  const siteSpace = await appendSiteSpace(tx, deps, access.caller, site, copy, level);
  siteSpace.draft = input.draft;
  return { site, siteSpace };
}
