import type { EntityManager } from "@mikro-orm/postgresql";
import { templateConditions, type TemplateCondition } from "../../domain/adaptive-schema.js";
import type { UseCaseDeps } from "../../deps.js";
import { requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";
import type { SiteAdaptiveSchemaInput } from "./get-site-adaptive-schema.js";

/** Conditions derived from the site's adaptive schema (none without one), for any member. */
export async function listSiteAdaptiveTemplateConditions(em: EntityManager, input: SiteAdaptiveSchemaInput, deps: UseCaseDeps): Promise<TemplateCondition[]> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  return templateConditions(site.adaptiveSchema ? (JSON.parse(site.adaptiveSchema) as Record<string, unknown>) : null);
}
