import { z } from "zod";
import { defineRoute, ok, type Route } from "../route.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
/** updateSiteAdaptiveSchema: `jsonSchema` an object; its rules (draft-07, claims, descriptions) are the service's. */
export const updateAdaptiveSchemaBody = z.object({ jsonSchema: z.record(z.string(), z.unknown()) });

export function siteAdaptiveSchemaRoutes({ upstreams }: RouteDeps): Route[] {
  const adaptiveSchema = upstreams.publishing.adaptiveSchema;
  return [
    // getSiteAdaptiveSchema: 404 until a schema is set.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await adaptiveSchema.getSiteAdaptiveSchema({ caller: principal.caller, ...params });
        return ok({
          object: "site-adaptive-schema",
          jsonSchema: JSON.parse(response.jsonSchema) as unknown,
          updatedAt: (response.updatedAt ?? new Date(0)).toISOString(),
        });
      },
    }),

    // updateSiteAdaptiveSchema
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
      params: siteParams,
      body: updateAdaptiveSchemaBody,
      handler: async ({ params, body, principal }) => {
        const response = await adaptiveSchema.updateSiteAdaptiveSchema({ caller: principal.caller, ...params, jsonSchema: JSON.stringify(body.jsonSchema) });
        return ok({
          object: "site-adaptive-schema",
          jsonSchema: JSON.parse(response.jsonSchema) as unknown,
          updatedAt: (response.updatedAt ?? new Date(0)).toISOString(),
        });
      },
    }),

    // listSiteAdaptiveTemplateConditions
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await adaptiveSchema.listSiteAdaptiveTemplateConditions({ caller: principal.caller, ...params });
        return ok({ items: response.conditions.map(({ description, condition }) => ({ description, condition })) });
      },
    }),
  ];
}
