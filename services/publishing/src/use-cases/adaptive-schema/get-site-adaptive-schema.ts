import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";

export interface SiteAdaptiveSchemaInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
}

export interface AdaptiveSchemaView {
  jsonSchema: Record<string, unknown>;
  updatedAt: Date;
}

/** A site's adaptive-content schema, for any member of its organization; not found until one is set. */
export async function getSiteAdaptiveSchema(em: EntityManager, input: SiteAdaptiveSchemaInput, deps: UseCaseDeps): Promise<AdaptiveSchemaView> {
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "member");
  const site = await findSite(em, access, input.siteId);
  if (!site.adaptiveSchema || !site.adaptiveSchemaUpdatedAt) throw AppError.notFound("Adaptive schema of the site");
  return { jsonSchema: JSON.parse(site.adaptiveSchema) as Record<string, unknown>, updatedAt: site.adaptiveSchemaUpdatedAt };
}
