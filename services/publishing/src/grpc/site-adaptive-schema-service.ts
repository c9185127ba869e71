import type { SiteAdaptiveSchemaServiceService } from "@imprint/proto/publishing/v1/site_adaptive_schema";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { getSiteAdaptiveSchema } from "../use-cases/adaptive-schema/get-site-adaptive-schema.js";
import { listSiteAdaptiveTemplateConditions } from "../use-cases/adaptive-schema/list-site-adaptive-template-conditions.js";
import { updateSiteAdaptiveSchema } from "../use-cases/adaptive-schema/update-site-adaptive-schema.js";
import { parseJson } from "./mappers.js";

export const SITE_ADAPTIVE_SCHEMA_SERVICE_NAME = "imprint.publishing.v1.SiteAdaptiveSchemaService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteAdaptiveSchemaServiceImplementation(
  em: () => EntityManager,
  deps: UseCaseDeps,
): AsyncImplementation<typeof SiteAdaptiveSchemaServiceService> {
  return {
    getSiteAdaptiveSchema: async (request) => {
      const view = await getSiteAdaptiveSchema(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { jsonSchema: JSON.stringify(view.jsonSchema), updatedAt: view.updatedAt };
    },

    updateSiteAdaptiveSchema: async (request) => {
      const view = await updateSiteAdaptiveSchema(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, jsonSchema: parseJson(request.jsonSchema, "jsonSchema") },
        deps,
      );
      return { jsonSchema: JSON.stringify(view.jsonSchema), updatedAt: view.updatedAt };
    },

    listSiteAdaptiveTemplateConditions: async (request) => {
      const conditions = await listSiteAdaptiveTemplateConditions(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId },
        deps,
      );
      return { conditions };
    },
  };
}
