import { UniqueConstraintViolationException, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
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
import { isId, requireOrganizationRole, type CallerInput } from "../shared/access.js";
import { defaultSection } from "../shared/site-spaces.js";
import { findSite, siteView, type SiteView } from "../shared/sites.js";

export interface UpdateSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  title: string | undefined;
  visibility: string | undefined;
  basename: string | undefined;
  adaptiveContentEnabled: boolean | undefined;
  agentsContext: string | undefined;
  defaultSiteSpaceId: string | undefined;
  defaultSiteSectionId: string | undefined;
  /** "" removes the proxy. */
  proxy: string | undefined;
  /** "" removes the hostname. */
  hostname: string | undefined;
}

const BASENAME_TAKEN = "basename: is already used by another site of this organization";
const HOSTNAME_TAKEN = "hostname: is already used by another site";

/**
 * Changes a site's settings (organization admins only). The basename is unique in the
 * organization and the hostname in the installation; the default section must be one of the
 * site's, the default site-space one of its root's or, with sections, of its default section's. Records `site.updated` with what changed (nothing is recorded when nothing did).
 */
export async function updateSite(em: EntityManager, input: UpdateSiteInput, deps: UseCaseDeps): Promise<SiteView> {
  const settings: SiteSettings = {
    title: input.title === undefined ? undefined : validateTitle(input.title),
    visibility: input.visibility === undefined ? undefined : validateVisibility(input.visibility),
    basename: input.basename === undefined ? undefined : validateBasename(input.basename),
    adaptiveContentEnabled: input.adaptiveContentEnabled,
    agentsContext: input.agentsContext === undefined ? undefined : validateAgentsContext(input.agentsContext),
    proxy: input.proxy === undefined ? undefined : validateProxy(input.proxy),
    hostname: input.hostname === undefined ? undefined : validateHostname(input.hostname),
  };
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
  try {
    const site = await deps.unitOfWork.run(em, async (tx) => {
      const found = await findSite(tx, access, input.siteId, { lock: true });
      const pending: Record<string, { from: unknown; to: unknown }> = {};
      if (input.defaultSiteSectionId !== undefined && input.defaultSiteSectionId !== found.defaultSectionId) {
        const section = isId(input.defaultSiteSectionId) ? await tx.findOne(SiteSection, { id: input.defaultSiteSectionId, siteId: found.id }) : null;
        if (!section) throw AppError.invalidArgument(`defaultSiteSection: no section ${input.defaultSiteSectionId} in this site`);
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
      if (input.defaultSiteSpaceId !== undefined) {
        // With sections, the default site-space is the default section's.
        const section = await defaultSection(tx, found);
        const level = section ?? found;
        if (input.defaultSiteSpaceId !== level.defaultSiteSpaceId) {
          const target = isId(input.defaultSiteSpaceId)
            ? await tx.findOne(SiteSpace, { id: input.defaultSiteSpaceId, siteId: found.id, sectionId: section?.id ?? null, spaceDeleted: false })
            : null;
          if (!target)
            throw AppError.invalidArgument(
              `defaultSiteSpace: no site-space ${input.defaultSiteSpaceId} ${section ? "in the site's default section" : "in this site"}`,
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
