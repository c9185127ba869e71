import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { newVisitorAuthKey, Site, validateTitle, validateType, validateVisibility } from "../../domain/site.js";
import { siteCreated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireOrganizationRole } from "../shared/access.js";
import { appendSiteSpace } from "../shared/site-spaces.js";
import { requirePublishableSpace, siteView, type SiteView } from "../shared/sites.js";

export interface CreateSiteInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** "" for basic. */
  type: string;
  /** "" for the default title. */
  title: string;
  /** "" for public. */
  visibility: string;
  /** Spaces to publish, in order. */
  spaceIds: string[];
}

export const DEFAULT_SITE_TITLE = "Docs site";
/** Spaces a site may be created with at once. */
export const CREATE_SPACES_MAX = 100;

/**
 * Creates an unpublished site (agents included, adaptive content off), with the given spaces as its
 * first site-spaces (the first is the default). Organization admins only. Records `site.created`,
 * then `site_space.created` for each space.
 */
export async function createSite(em: EntityManager, input: CreateSiteInput, deps: UseCaseDeps): Promise<SiteView> {
  const type = input.type === "" ? "basic" : validateType(input.type);
  const title = input.title === "" ? DEFAULT_SITE_TITLE : validateTitle(input.title);
  const visibility = input.visibility === "" ? "public" : validateVisibility(input.visibility);
  if (input.spaceIds.length > CREATE_SPACES_MAX) throw AppError.invalidArgument(`spaces: must hold at most ${CREATE_SPACES_MAX} spaces`);
  const access = await requireOrganizationRole(deps, input.caller, input.organizationId, "admin", "change sites");
  const spaces = await Promise.all(input.spaceIds.map((spaceId, index) => requirePublishableSpace(deps, access, spaceId, `spaces[${index}]`)));
  const site = await deps.unitOfWork.run(em, async (tx) => {
    const now = deps.clock();
    const created = tx.create(Site, {
      id: randomUUID(),
      organizationId: access.organizationId,
      type,
      title,
      visibility,
      published: false,
      basename: null,
      hostname: null,
      proxy: null,
      adaptiveContentEnabled: false,
      agentsContext: "included",
      defaultSiteSpaceId: null,
      visitorAuthKey: newVisitorAuthKey(),
      visitorAuthFallbackUrl: null,
      visitorAuthLogoutUrl: null,
      adaptiveSchema: null,
      adaptiveSchemaUpdatedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    recordEvent(tx, siteCreated, { organizationId: created.organizationId, actor: access.caller, payload: { siteId: created.id, title, type, visibility } });
    for (const space of spaces) {
      await appendSiteSpace(tx, deps, access.caller, created, space);
      await tx.flush();
    }
    return created;
  });
  return siteView(em, access, site);
}
