import type { SiteCustomizationServiceService } from "@imprint/proto/publishing/v1/site_customization";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { deleteSiteSpaceCustomization } from "../use-cases/customization/delete-site-space-customization.js";
import { getSiteCustomization } from "../use-cases/customization/get-site-customization.js";
import { getSiteSpaceCustomization } from "../use-cases/customization/get-site-space-customization.js";
import { overrideSiteSpaceCustomization } from "../use-cases/customization/override-site-space-customization.js";
import { updateSiteCustomization } from "../use-cases/customization/update-site-customization.js";
import { customizationToProto, parseJson } from "./mappers.js";

export const SITE_CUSTOMIZATION_SERVICE_NAME = "imprint.publishing.v1.SiteCustomizationService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteCustomizationServiceImplementation(
  em: () => EntityManager,
  deps: UseCaseDeps,
): AsyncImplementation<typeof SiteCustomizationServiceService> {
  return {
    getSiteCustomization: async (request) => {
      const view = await getSiteCustomization(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { customization: customizationToProto(view) };
    },

    updateSiteCustomization: async (request) => {
      const view = await updateSiteCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, customization: parseJson(request.customizationJson, "body") },
        deps,
      );
      return { customization: customizationToProto(view) };
    },

    getSiteSpaceCustomization: async (request) => {
      const view = await getSiteSpaceCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId },
        deps,
      );
      return { customization: customizationToProto(view), hasOverrides: view.hasOverrides };
    },

    overrideSiteSpaceCustomization: async (request) => {
      const view = await overrideSiteSpaceCustomization(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteSpaceId: request.siteSpaceId,
          override: parseJson(request.overrideJson, "body"),
        },
        deps,
      );
      return { customization: customizationToProto(view), hasOverrides: view.hasOverrides };
    },

    deleteSiteSpaceCustomization: async (request) => {
      const { removed } = await deleteSiteSpaceCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId },
        deps,
      );
      return { removed };
    },
  };
}
