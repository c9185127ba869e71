import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import type { Page } from "@imprint/proto/content/v1/revisions";
import { AppError } from "@imprint/runtime";
import { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import { MAX_REDIRECTS_PER_SITE, SiteRedirect, SOURCE_MAX, SOURCE_PATTERN, type RedirectDestination } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { effectiveDefaultSectionId } from "../shared/sections.js";
import { changeRedirect, insertRedirect } from "../shared/site-redirects.js";
import { levelDefaults } from "../shared/sites.js";

export interface RecordPageMovesInput {
  spaceId: string;
  /** The space's new head. */
  revisionId: string;
  /** The head it replaced (its first parent). */
  parentRevisionId: string;
  /** When the revision was committed: the version of the automatic redirects it leaves. */
  movedAt: Date;
}

/** Every page with a path (links have none), by id. */
function pathsById(pages: Page[], into = new Map<string, string>()): Map<string, string> {
  for (const page of pages) {
    if (page.path) into.set(page.id, page.path);
    pathsById(page.pages, into);
  }
  return into;
}

const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/**
 * A new head of a space that published sites show: each page whose path differs from the parent
 * revision's leaves, on each of those sites, an automatic permanent redirect from its old address
 * (where the reader addressed it: the site-space's base plus the page's path) to the page itself, so
 * it follows the page wherever it goes next. Revisions are immutable, so the same event always
 * finds the same moves: applied twice, it changes nothing. A source some person redirected stays
 * theirs; one an automatic redirect already holds goes to the page that moved from it last (by
 * commit time), so an older move delivered late never takes it back; a source a page of the new
 * revision occupies is left alone (the page answers there). A site at its limit records no more.
 * Records `site_redirect.created` or `.updated` for each.
 */
export async function recordPageMoves(em: EntityManager, input: RecordPageMovesInput, deps: Pick<UseCaseDeps, "published" | "clock">): Promise<number> {
  const siteSpaces = await em.find(SiteSpace, { spaceId: input.spaceId, spaceDeleted: false, draft: false });
  const sites =
    siteSpaces.length === 0 ? [] : await em.find(Site, { id: { $in: [...new Set(siteSpaces.map((siteSpace) => siteSpace.siteId))] }, published: true });
  if (sites.length === 0) return 0;

  const read = async (revisionId: string) => {
    try {
      return pathsById((await deps.published.getPublishedSpace({ spaceId: input.spaceId, knownRevisionId: "", revisionId })).pages);
    } catch (error) {
      // No longer published (or gone): nothing of it to redirect.
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }
  };
  const before = await read(input.parentRevisionId);
  const after = before && (await read(input.revisionId));
  if (!before || !after) return 0;
  const occupied = new Set(after.values());
  const moves = [...after].flatMap(([pageId, path]) => {
    const old = before.get(pageId);
    return old !== undefined && old !== path && !occupied.has(old) ? [{ pageId, oldPath: old }] : [];
  });
  if (moves.length === 0) return 0;

  let recorded = 0;
  for (const site of sites) {
    // The site's lock orders this with people's changes to its redirects.
    await em.findOne(Site, { id: site.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const sections = await em.find(SiteSection, { siteId: site.id }, { orderBy: { position: "asc", id: "asc" } });
    const defaultSectionId = effectiveDefaultSectionId(site, sections);
    const defaults = await levelDefaults(em, site.id);
    let count = await em.count(SiteRedirect, { siteId: site.id });
    for (const siteSpace of siteSpaces.filter((candidate) => candidate.siteId === site.id)) {
      const section = sections.find((candidate) => candidate.id === siteSpace.sectionId);
      const sectionPrefix = !section || section.id === defaultSectionId ? "" : `${encodeURIComponent(section.path)}/`;
      const siteSpacePrefix = defaults.get(siteSpace.sectionId ?? "") === siteSpace.id ? "" : `${encodeURIComponent(siteSpace.path)}/`;
      for (const move of moves) {
        const source = `/${sectionPrefix}${siteSpacePrefix}${encodePath(move.oldPath)}`;
        if (source.length > SOURCE_MAX || !SOURCE_PATTERN.test(source)) continue;
        const destination: RedirectDestination = { kind: "site-page", siteSectionId: null, siteSpaceId: siteSpace.id, pageId: move.pageId, url: null };
        const options = { actor: null, now: deps.clock(), automatic: { pageMoveAt: input.movedAt } };
        const existing = await em.findOne(SiteRedirect, { siteId: site.id, source, draft: false });
        if (existing) {
          if (!existing.automatic || (existing.pageMoveAt && existing.pageMoveAt >= input.movedAt)) continue;
          if (changeRedirect(em, site, existing, { destination, permanent: true }, options)) recorded += 1;
          continue;
        }
        if (count >= MAX_REDIRECTS_PER_SITE) continue;
        insertRedirect(em, site, { source, draft: false, permanent: true, captureWildcard: false, destination }, options);
        // Found by the next move naming the same source (two site-spaces of one level cannot share a path).
        await em.flush();
        count += 1;
        recorded += 1;
      }
    }
  }
  return recorded;
}
