import { UniqueConstraintViolationException, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, parseUpdateMask, recordEvent } from "@imprint/runtime";
import {
  Site,
  validateAgentsContext,
  validateBasename,
  validateHostname,
  validateProxy,
  validateTitle,
  validateVisibility,
  type SiteSettings,
} from "../../domain/site.js";
import { SiteSection } from "../../domain/site-section.js";
import { SiteSpace } from "../../domain/site-space.js";
import { siteUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { isId, requireSiteCaller, type CallerInput } from "../shared/access.js";
import { defaultSection } from "../shared/site-spaces.js";
import { findSite, siteView, type SiteView } from "../shared/sites.js";

const UPDATABLE_FIELDS = [
  "title",
  "visibility",
  "basename",
  "adaptive_content_enabled",
  "agents_context",
  "default_site_space_id",
  "default_site_section_id",
  "proxy",
  "hostname",
] as const;

export interface UpdateSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** Field paths, snake_case or camelCase; none changes nothing. */
  updateMask: string[] | undefined;
  title: string;
  visibility: string;
  basename: string;
  adaptiveContentEnabled: boolean;
  agentsContext: string;
  defaultSiteSpaceId: string;
  defaultSiteSectionId: string;
  /** "" removes the proxy. */
  proxy: string;
  /** "" removes the hostname. */
  hostname: string;
}

const BASENAME_TAKEN = "basename: is already used by another site of this organization";
const HOSTNAME_TAKEN = "hostname: is already used by another site";

/**
 * Changes a site's settings (site admins only). The basename is unique in the
 * organization and the hostname in the installation; the default section must be one of the
 * site's, the default site-space one of its root's or, with sections, of its default section's.
 * Only the fields the mask names change (none: the site as it is). Records `site.updated` with what
 * changed (nothing is recorded when nothing did).
 */
export async function updateSite(em: EntityManager, input: UpdateSiteInput, deps: UseCaseDeps): Promise<SiteView> {
  const fields = parseUpdateMask(input.updateMask, UPDATABLE_FIELDS, { emptyMeans: "no_field_changes" });
  const settings: SiteSettings = {
    title: fields.has("title") ? validateTitle(input.title) : undefined,
    visibility: fields.has("visibility") ? validateVisibility(input.visibility) : undefined,
    basename: fields.has("basename") ? validateBasename(input.basename) : undefined,
    adaptiveContentEnabled: fields.has("adaptive_content_enabled") ? input.adaptiveContentEnabled : undefined,
    agentsContext: fields.has("agents_context") ? validateAgentsContext(input.agentsContext) : undefined,
    proxy: fields.has("proxy") ? validateProxy(input.proxy) : undefined,
    hostname: fields.has("hostname") ? validateHostname(input.hostname) : undefined,
  };
  const defaultSiteSectionId = fields.has("default_site_section_id") ? input.defaultSiteSectionId : undefined;
  const defaultSiteSpaceId = fields.has("default_site_space_id") ? input.defaultSiteSpaceId : undefined;
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  try {
    const site = await deps.unitOfWork.run(em, async (tx) => {
      const found = await findSite(tx, access, input.siteId, { lock: true });
      const pending: Record<string, { from: unknown; to: unknown }> = {};
      if (defaultSiteSectionId !== undefined && defaultSiteSectionId !== found.defaultSectionId) {
        const section = isId(defaultSiteSectionId) ? await tx.findOne(SiteSection, { id: defaultSiteSectionId, siteId: found.id }) : null;
        if (!section) throw AppError.invalidArgument(`defaultSiteSection: no section ${defaultSiteSectionId} in this site`);
        pending.defaultSiteSection = { from: found.defaultSectionId, to: section.id };
        found.defaultSectionId = section.id;
      }
      if (settings.basename !== undefined && settings.basename !== found.basename) {
        if (await tx.count(Site, { organizationId: found.organizationId, basename: settings.basename, id: { $ne: found.id } }))
          throw AppError.invalidArgument(BASENAME_TAKEN);
      }
      if (settings.hostname && settings.hostname !== found.hostname) {
        if (await tx.count(Site, { hostname: settings.hostname, id: { $ne: found.id } })) throw AppError.invalidArgument(HOSTNAME_TAKEN);
      }
      const changes = { ...found.update(settings, deps.clock), ...pending };
      if (defaultSiteSpaceId !== undefined) {
        // With sections, the default site-space is the default section's.
        const section = await defaultSection(tx, found);
        const level = section ?? found;
        if (defaultSiteSpaceId !== level.defaultSiteSpaceId) {
          const target = isId(defaultSiteSpaceId)
            ? await tx.findOne(SiteSpace, { id: defaultSiteSpaceId, siteId: found.id, sectionId: section?.id ?? null, spaceDeleted: false })
            : null;
          if (!target)
            throw AppError.invalidArgument(
              `defaultSiteSpace: no site-space ${defaultSiteSpaceId} ${section ? "in the site's default section" : "in this site"}`,
            );
          changes.defaultSiteSpace = { from: level.defaultSiteSpaceId, to: target.id };
          level.defaultSiteSpaceId = target.id;
        }
      }
      if (Object.keys(changes).length > 0) found.updatedAt = deps.clock();
      if (Object.keys(changes).length > 0) {
        recordEvent(tx, siteUpdated, {
          organizationId: found.organizationId,
          actor: access.caller,
          payload: { siteId: found.id, changedFields: Object.keys(changes), changes },
        });
      }
      return found;
    });
    return siteView(em, access, site);
  } catch (error) {
    // Two concurrent updates can both pass the checks above; the unique constraints decide.
    if (error instanceof UniqueConstraintViolationException) {
      throw AppError.invalidArgument(String(error.message).includes("hostname") ? HOSTNAME_TAKEN : BASENAME_TAKEN);
    }
    throw error;
  }
}
