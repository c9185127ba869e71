import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql } from "@imprint/runtime";
import { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import { SiteRedirect, validateSource, wildcardPrefix } from "../../domain/site-redirect.js";
import type { UseCaseDeps } from "../../deps.js";
import { callerMessage, type CallerInput, type OrganizationCaller, requireSiteCaller } from "../shared/access.js";
import type { SiteRedirectView } from "../shared/site-redirects.js";
import { requireActiveShareKey } from "../shared/share-links.js";
import { effectiveDefaultSectionId } from "../shared/sections.js";
import { findSite, levelDefaults } from "../shared/sites.js";

export interface GetSiteRedirectBySourceInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  source: string;
  /** An active share link's key to build the target through; "" for none. */
  shareKey: string;
}

export interface ResolvedRedirect extends SiteRedirectView {
  site: Site;
  /** The target outside the site (external destinations); "" otherwise. */
  targetUrl: string;
  /** The target's path after the site's base (share key included, segments encoded). */
  targetPath: string;
}

/**
 * The live redirect a path of the site follows (members): its own, else the wildcard source with
 * the longest prefix covering it; and where it leads, the part a captured wildcard matched
 * appended. "Site redirect not found" when none.
 */
export async function getSiteRedirectBySource(em: EntityManager, input: GetSiteRedirectBySourceInput, deps: UseCaseDeps): Promise<ResolvedRedirect> {
  const source = validateSource(input.source);
  if (source.endsWith("*")) throw AppError.invalidArgument("source: must be a path, without wildcard");
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const redirect = await followedRedirect(em, site, source);
  if (!redirect) throw AppError.notFound("Site redirect");
  const prefix = wildcardPrefix(redirect.source);
  const captured = prefix !== null && redirect.captureWildcard ? source.slice(prefix.length) : "";
  if (redirect.destinationKind === "external")
    return { redirect, site, targetUrl: appendCaptured(redirect.destinationUrl ?? "", captured, redirect.source), targetPath: "" };
  const path = await destinationPath(em, deps, access, site, redirect);
  const through = shareKey ? `${encodeURIComponent(shareKey)}/` : "";
  return { redirect, site, targetUrl: "", targetPath: appendCaptured(`${through}${path}`, captured, redirect.source) };
}

/** The site's live redirect from `source`, else the longest live wildcard source covering it. */
async function followedRedirect(em: EntityManager, site: Site, source: string): Promise<SiteRedirect | null> {
  const exact = await em.findOne(SiteRedirect, { siteId: site.id, source, draft: false });
  if (exact) return exact;
  const rows = await queryRows(
    em,
    sql<{ id: string }>`select id from site_redirects
      where site_id = ${site.id} and draft = false and source like '%*'
        and starts_with(${source}, left(source, length(source) - 1)) and ${source} <> left(source, length(source) - 1)
      order by length(source) desc limit 1`,
  );
  return rows[0] ? em.findOne(SiteRedirect, { id: rows[0].id }) : null;
}

/** What a captured wildcard adds: after a "/*" source, as segments under the destination; after "*", as is. */
function appendCaptured(target: string, captured: string, source: string): string {
  if (!captured) return target;
  if (source.endsWith("/*")) return `${target.replace(/\/+$/, "")}/${captured}`;
  return `${target}${captured}`;
}

/**
 * The path after the site's base of a section, a site-space or a page of one, as the reader
 * addresses them: the default section's and each level's default site-space's paths left out.
 */
async function destinationPath(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "revisions">,
  access: OrganizationCaller,
  site: Site,
  redirect: SiteRedirect,
): Promise<string> {
  const sections = await em.find(SiteSection, { siteId: site.id }, { orderBy: { position: "asc", id: "asc" } });
  const defaultSectionId = effectiveDefaultSectionId(site, sections);
  const sectionPrefix = (sectionId: string | null | undefined) => {
    const section = sections.find((candidate) => candidate.id === sectionId);
    return !section || section.id === defaultSectionId ? "" : `${encodeURIComponent(section.path)}/`;
  };
  if (redirect.destinationKind === "site-section") return sectionPrefix(redirect.destinationSiteSectionId);
  const siteSpace = await em.findOne(SiteSpace, { id: redirect.destinationSiteSpaceId!, siteId: site.id });
  if (!siteSpace) return "";
  const isLevelDefault = (await levelDefaults(em, site.id)).get(siteSpace.sectionId ?? "") === siteSpace.id;
  const base = `${sectionPrefix(siteSpace.sectionId)}${isLevelDefault ? "" : `${encodeURIComponent(siteSpace.path)}/`}`;
  if (redirect.destinationKind !== "site-page" || !redirect.destinationPageId) return base;
  const { pages } = await deps.revisions.batchGetPageSummaries({
    caller: callerMessage(access.caller),
    ref: { spaceId: siteSpace.spaceId, changeRequestId: "", revisionId: "" },
    pageIds: [redirect.destinationPageId],
  });
  const page = pages[0];
  return page ? `${base}${page.path.split("/").map(encodeURIComponent).join("/")}` : base;
}
