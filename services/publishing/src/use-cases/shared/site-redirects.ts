import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned, queryRows, recordEvent, sql, type Actor } from "@imprint/runtime";
import type { Site } from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import {
  describeDestination,
  destinationOf,
  MAX_REDIRECTS_PER_SITE,
  setDestination,
  SiteRedirect,
  validateDestinationShape,
  type RedirectDestination,
} from "../../domain/site-redirect.js";
import { siteRedirectCreated, siteRedirectDeleted, siteRedirectUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { callerMessage, isId, type OrganizationCaller } from "./access.js";

export interface SiteRedirectView {
  redirect: SiteRedirect;
}

/** A destination as a request names it: GitBook's kinds, or a page by its space and path (`path`). */
export interface DestinationRequest {
  kind: string;
  siteSectionId: string;
  siteSpaceId: string;
  pageId: string;
  url: string;
  spaceId: string;
  path: string;
}

/** A redirect of the site; another site's (or none) is "Site redirect not found". */
export async function findSiteRedirect(em: EntityManager, site: Site, siteRedirectId: string, options: { lock?: boolean } = {}): Promise<SiteRedirect> {
  return findOwned(em, SiteRedirect, { siteId: site.id }, siteRedirectId, options);
}

/**
 * A requested destination checked against the site: its section or site-space must be the site's,
 * a page must be in the site-space's space as the caller sees it; a page named by space and path
 * becomes that page of the site's first site-space publishing the space. Refused naming `field`.
 */
export async function resolveDestination(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "revisions">,
  access: OrganizationCaller,
  site: Site,
  requested: DestinationRequest,
  field = "destination",
): Promise<RedirectDestination> {
  if (requested.kind === "path") return resolvePathDestination(em, deps, access, site, requested, field);
  const destination = validateDestinationShape(requested, field);
  if (destination.siteSectionId !== null) {
    const section = isId(destination.siteSectionId) ? await em.findOne(SiteSection, { id: destination.siteSectionId, siteId: site.id }) : null;
    if (!section) throw AppError.invalidArgument(`${field}.siteSectionId: no section ${destination.siteSectionId} in this site`);
  }
  if (destination.siteSpaceId !== null) {
    const siteSpace = isId(destination.siteSpaceId) ? await em.findOne(SiteSpace, { id: destination.siteSpaceId, siteId: site.id }) : null;
    if (!siteSpace) throw AppError.invalidArgument(`${field}.siteSpaceId: no site-space ${destination.siteSpaceId} in this site`);
    if (destination.pageId !== null) {
      const { pages } = await deps.revisions.batchGetPageSummaries({
        caller: callerMessage(access.caller),
        ref: { spaceId: siteSpace.spaceId, changeRequestId: "", revisionId: "" },
        pageIds: [destination.pageId],
      });
      if (pages.length === 0) throw AppError.invalidArgument(`${field}.pageId: no page ${destination.pageId} in the site-space's space`);
    }
  }
  return destination;
}

async function resolvePathDestination(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "revisions">,
  access: OrganizationCaller,
  site: Site,
  requested: DestinationRequest,
  field: string,
): Promise<RedirectDestination> {
  if (!requested.spaceId) throw AppError.invalidArgument(`${field}.spaceId: is required for a path destination`);
  const siteSpace = isId(requested.spaceId)
    ? await em.findOne(SiteSpace, { siteId: site.id, spaceId: requested.spaceId }, { orderBy: { position: "asc", id: "asc" } })
    : null;
  if (!siteSpace) throw AppError.invalidArgument(`${field}.spaceId: the site does not publish space ${requested.spaceId}`);
  let pageId: string;
  try {
    const { page } = await deps.revisions.getPageByPath({
      caller: callerMessage(access.caller),
      ref: { spaceId: siteSpace.spaceId, changeRequestId: "", revisionId: "" },
      path: requested.path,
    });
    pageId = page?.id ?? "";
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") pageId = "";
    else throw error;
  }
  if (!pageId) throw AppError.invalidArgument(`${field}.path: no page at ${requested.path} in space ${requested.spaceId}`);
  return { kind: "site-page", siteSectionId: null, siteSpaceId: siteSpace.id, pageId, url: null };
}

/** Refuses a new redirect beyond the site's limit (counted under the site's lock). */
export async function requireRoomForRedirects(em: EntityManager, site: Site, adding: number): Promise<void> {
  if (adding <= 0) return;
  const [row] = await queryRows(em, sql<{ count: string }>`select count(*) as count from site_redirects where site_id = ${site.id}`);
  if (Number(row?.count ?? 0) + adding > MAX_REDIRECTS_PER_SITE)
    throw AppError.invalidArgument(`redirects: a site holds at most ${MAX_REDIRECTS_PER_SITE} redirects`);
}

/** What a redirect is made of, besides its site. */
export interface RedirectFields {
  source: string;
  draft: boolean;
  permanent: boolean;
  captureWildcard: boolean;
  destination: RedirectDestination;
}

/** Adds a redirect to the site (the caller holds the site's lock and checked room for it); records `site_redirect.created`. */
export function insertRedirect(
  tx: EntityManager,
  site: Site,
  fields: RedirectFields,
  options: { actor: Actor | null; now: Date; automatic?: { pageMoveAt: Date } },
): SiteRedirect {
  const redirect = tx.create(SiteRedirect, {
    id: randomUUID(),
    siteId: site.id,
    organizationId: site.organizationId,
    source: fields.source,
    draft: fields.draft,
    permanent: fields.permanent,
    captureWildcard: fields.captureWildcard,
    destinationKind: fields.destination.kind,
    destinationSiteSectionId: fields.destination.siteSectionId,
    destinationSiteSpaceId: fields.destination.siteSpaceId,
    destinationPageId: fields.destination.pageId,
    destinationUrl: fields.destination.url,
    automatic: options.automatic !== undefined,
    pageMoveAt: options.automatic?.pageMoveAt ?? null,
    createdAt: options.now,
    updatedAt: null,
    lastChangedAt: options.now,
  });
  recordEvent(tx, siteRedirectCreated, {
    organizationId: site.organizationId,
    actor: options.actor,
    payload: { siteId: site.id, siteRedirectId: redirect.id, source: redirect.source, draft: redirect.draft, automatic: redirect.automatic },
  });
  return redirect;
}

/**
 * Changes what `fields` gives of a redirect; records `site_redirect.updated` with the REST names of
 * what changed (nothing when nothing did). A person's change makes it theirs: no longer automatic.
 */
export function changeRedirect(
  tx: EntityManager,
  site: Site,
  redirect: SiteRedirect,
  fields: Partial<RedirectFields>,
  options: { actor: Actor | null; now: Date; automatic?: { pageMoveAt: Date } },
): boolean {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const change = <K extends "source" | "draft" | "permanent" | "captureWildcard">(name: K, value: SiteRedirect[K] | undefined) => {
    if (value === undefined || value === redirect[name]) return;
    changes[name] = { from: redirect[name], to: value };
    redirect[name] = value;
  };
  change("source", fields.source);
  change("draft", fields.draft);
  change("permanent", fields.permanent);
  change("captureWildcard", fields.captureWildcard);
  if (fields.destination) {
    const before = describeDestination(destinationOf(redirect));
    const after = describeDestination(fields.destination);
    if (before !== after) {
      changes.destination = { from: before, to: after };
      setDestination(redirect, fields.destination);
    }
  }
  if (options.automatic) redirect.pageMoveAt = options.automatic.pageMoveAt;
  else if (redirect.automatic && Object.keys(changes).length > 0) {
    redirect.automatic = false;
    redirect.pageMoveAt = null;
  }
  if (Object.keys(changes).length === 0) return false;
  redirect.updatedAt = options.now;
  redirect.lastChangedAt = options.now;
  recordEvent(tx, siteRedirectUpdated, {
    organizationId: site.organizationId,
    actor: options.actor,
    payload: { siteId: site.id, siteRedirectId: redirect.id, changedFields: Object.keys(changes), changes },
  });
  return true;
}

/** Removes a redirect; records `site_redirect.deleted`. */
export function removeRedirect(tx: EntityManager, site: Site, redirect: SiteRedirect, actor: Actor | null): void {
  tx.remove(redirect);
  recordEvent(tx, siteRedirectDeleted, {
    organizationId: site.organizationId,
    actor,
    payload: { siteId: site.id, siteRedirectId: redirect.id, source: redirect.source },
  });
}

/** A source in use in that mode by another redirect of the site is refused naming `field`. */
export async function requireFreeSource(em: EntityManager, site: Site, source: string, draft: boolean, except: string | null, field = "source"): Promise<void> {
  const taken = await em.findOne(SiteRedirect, { siteId: site.id, source, draft });
  if (taken && taken.id !== except) throw AppError.conflict(`${field}: the site already has a ${draft ? "draft" : "live"} redirect from ${source}`);
}
