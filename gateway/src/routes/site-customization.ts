import { z } from "zod";
import { toRestCustomization } from "../mappers/site.js";
import { defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteSpaceParams } from "./site-spaces.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
/** A customization or an override: an object, checked against GitBook's schema by the publishing service. */
export const customizationBody = z.record(z.string(), z.unknown());
const customizationQuery = z.object({ unmasked: queryParam.boolean().optional() });

export function siteCustomizationRoutes({ upstreams }: RouteDeps): Route[] {
  const customization = upstreams.publishing.customization;
  return [
    // getSiteCustomizationById: `unmasked` (deprecated) changes nothing: nothing is masked.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/customization",
      params: siteParams,
      query: customizationQuery,
      handler: async ({ params, principal }) => {
        const response = await customization.getSiteCustomization({ caller: principal.caller, ...params });
        return ok(toRestCustomization(response.customization));
      },
    }),

    // updateSiteCustomizationById: the whole customization, checked against GitBook's schema.
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/sites/:siteId/customization",
      params: siteParams,
      body: customizationBody,
      handler: async ({ params, body, principal }) => {
        const response = await customization.updateSiteCustomization({ caller: principal.caller, ...params, customizationJson: JSON.stringify(body) });
        return ok(toRestCustomization(response.customization));
      },
    }),

    // getSiteSpaceCustomizationById: the site's customization with the site-space's override applied.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      query: customizationQuery,
      handler: async ({ params, principal }) => {
        const response = await customization.getSiteSpaceCustomization({ caller: principal.caller, ...params });
        return ok({ ...toRestCustomization(response.customization), hasOverrides: response.hasOverrides });
      },
    }),

    // overrideSiteSpaceCustomizationById: given settings override the site's; null resets one.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      body: customizationBody,
      handler: async ({ params, body, principal }) => {
        const response = await customization.overrideSiteSpaceCustomization({ caller: principal.caller, ...params, overrideJson: JSON.stringify(body) });
        return ok({ ...toRestCustomization(response.customization), hasOverrides: response.hasOverrides });
      },
    }),

    // deleteSiteSpaceCustomizationById: 205 when an override was removed, 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      handler: async ({ params, principal }) => {
        const response = await customization.deleteSiteSpaceCustomization({ caller: principal.caller, ...params });
        return response.removed ? resetContent() : noContent();
      },
    }),
  ];
}
