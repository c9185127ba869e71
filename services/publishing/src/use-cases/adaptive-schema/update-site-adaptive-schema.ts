import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { validateAdaptiveSchema } from "../../domain/adaptive-schema.js";
import { siteUpdated } from "../../events.js";
import type { UseCaseDeps } from "../../deps.js";
import { type CallerInput, requireSiteCaller } from "../shared/access.js";
import { findSite } from "../shared/sites.js";
import type { AdaptiveSchemaView } from "./get-site-adaptive-schema.js";

export interface UpdateSiteAdaptiveSchemaInput {
  caller: CallerInput | undefined;
  organizationId: string;
  siteId: string;
  /** The schema as parsed JSON (checked here). */
  jsonSchema: unknown;
}

/**
 * Replaces a site's adaptive-content schema (site admins only), refused naming the JSON
 * path of the first problem. Records `site.updated` (`adaptiveSchema`, old and new).
 */
export async function updateSiteAdaptiveSchema(em: EntityManager, input: UpdateSiteAdaptiveSchemaInput, deps: UseCaseDeps): Promise<AdaptiveSchemaView> {
  const jsonSchema = validateAdaptiveSchema(input.jsonSchema);
  const access = await requireSiteCaller(deps, input.caller, input.organizationId, "admin", "change sites");
  return deps.unitOfWork.run(em, async (tx) => {
    const site = await findSite(tx, access, input.siteId, { lock: true });
    const before = site.adaptiveSchema ? (JSON.parse(site.adaptiveSchema) as unknown) : null;
    const now = deps.clock();
    site.adaptiveSchema = JSON.stringify(jsonSchema);
    site.adaptiveSchemaUpdatedAt = now;
    site.updatedAt = now;
    recordEvent(tx, siteUpdated, {
      organizationId: site.organizationId,
      actor: access.caller,
      payload: { siteId: site.id, changedFields: ["adaptiveSchema"], changes: { adaptiveSchema: { from: before, to: jsonSchema } } },
    });
    return { jsonSchema, updatedAt: now };
  });
}
