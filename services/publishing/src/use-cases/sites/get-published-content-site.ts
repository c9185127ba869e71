import { createHash } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import type { Customization } from "../../domain/customization/customization.js";
import type { Site } from "../../domain/site.js";
import type { UseCaseDeps } from "../../deps.js";
import { isId, type CallerInput, requireSiteCaller, requireSiteLevel, type OrganizationCaller } from "../shared/access.js";
import { siteCustomization, siteSpaceCustomization, type CustomizationView } from "../shared/customization.js";
import { requireActiveShareKey } from "../shared/share-links.js";
import { findSite, siteView, type SiteView } from "../shared/sites.js";
import { siteStructure, structureSiteSpaces, type SiteStructureView } from "../shared/structure.js";

export interface GetPublishedContentSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** An active share link's key to build published URLs through ("" for none). */
  shareKey: string;
  /** The version of the answer the caller holds ("" for none). */
  knownVersion: string;
}

export interface PublishedContentSiteView {
  version: string;
  site: SiteView;
  structure: SiteStructureView;
  /** The site's customization. */
  customization: CustomizationView;
  /** What each site-space with an override shows instead (its site's customization with the override applied). */
  siteSpaceCustomizations: { siteSpaceId: string; customization: Customization }[];
}

/**
 * How long an answer may stay current when nothing it shows reported a change: what content does
 * not announce by an event this service follows (a collection's permissions, for one) shows after
 * at most this long.
 */
export const PUBLISHED_VIEW_MAX_AGE_MS = 60_000;

/**
 * The version of a caller's answer: the site's version (which moves with every change to the site,
 * its structure and the spaces it publishes), who asks with which role, through which share key,
 * and the period of PUBLISHED_VIEW_MAX_AGE_MS it falls in.
 */
function answerVersion(site: Pick<Site, "id" | "version">, access: OrganizationCaller, shareKey: string, now: Date): string {
  const period = Math.floor(now.getTime() / PUBLISHED_VIEW_MAX_AGE_MS);
  return createHash("sha256")
    .update(JSON.stringify([site.id, site.version, access.caller.userId, access.role, shareKey, period]))
    .digest("base64url")
    .slice(0, 22);
}

/**
 * Everything a reader of the site needs in one answer (GitBook's PublishedContentSite): the site,
 * its structure as visitors see it (drafts left out) and its customizations. For anyone who can see the site
 * (members, guests granted it). When the caller already holds the current answer (`knownVersion`), only the version
 * is answered.
 */
export async function getPublishedContentSite(
  em: EntityManager,
  input: GetPublishedContentSiteInput,
  deps: UseCaseDeps,
): Promise<PublishedContentSiteView | { notModified: true; version: string }> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  if (input.knownVersion !== "" && input.shareKey === "" && isId(input.siteId)) {
    await requireSiteLevel(em, access, input.siteId);
    // The frequent case, answered from one row read without loading the site: nothing changed.
    const [row] = await queryRows(
      em,
      sql<{ version: number }>`select version from sites where id = ${input.siteId} and organization_id = ${access.organizationId}`,
    );
    const version = row ? answerVersion({ id: input.siteId, version: row.version }, access, "", deps.clock()) : "";
    if (version === input.knownVersion) return { notModified: true, version };
  }
  const site = await findSite(em, access, input.siteId);
  const shareKey = await requireActiveShareKey(em, site, input.shareKey);
  const version = answerVersion(site, access, shareKey, deps.clock());
  if (input.knownVersion !== "" && input.knownVersion === version) return { notModified: true, version };
  const view = await siteView(em, access, site);
  // What visitors see: drafts (and everything in them) are left out.
  const structure = await siteStructure(em, deps, access, site, { shareKey, liveOnly: true });
  const siteSpaceCustomizations = structureSiteSpaces(structure)
    .filter((siteSpaceView) => siteSpaceView.siteSpace.customizationOverride)
    .map((siteSpaceView) => ({ siteSpaceId: siteSpaceView.siteSpace.id, customization: siteSpaceCustomization(site, siteSpaceView.siteSpace).customization }));
  return { version, site: view, structure, customization: siteCustomization(site), siteSpaceCustomizations };
}
