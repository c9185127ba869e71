import {
  SiteSearchMode,
  SiteSearchRestriction,
  type SiteSearchScope as SiteSearchScopeMessage,
  type SiteServiceService,
} from "@imprint/proto/publishing/v1/sites";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { batchGetSites } from "../use-cases/sites/batch-get-sites.js";
import { createSite } from "../use-cases/sites/create-site.js";
import { deleteSite } from "../use-cases/sites/delete-site.js";
import { getPublishedContentSite } from "../use-cases/sites/get-published-content-site.js";
import { getSite } from "../use-cases/sites/get-site.js";
import { listSites } from "../use-cases/sites/list-sites.js";
import { prewarmSiteSearch } from "../use-cases/sites/prewarm-site-search.js";
import { publishSite } from "../use-cases/sites/publish-site.js";
import { resolvePublishedUrl } from "../use-cases/sites/resolve-published-url.js";
import { searchSiteContent, type SiteSearchScope } from "../use-cases/sites/search-site-content.js";
import { unpublishSite } from "../use-cases/sites/unpublish-site.js";
import { updateSite } from "../use-cases/sites/update-site.js";
import { customizationToProto, siteToProto, structureToProto } from "./mappers.js";

export const SITE_SERVICE_NAME = "imprint.publishing.v1.SiteService";

/** The request's scope (unset: the default scope). */
function toSiteSearchScope(scope: SiteSearchScopeMessage | undefined): SiteSearchScope {
  switch (scope?.mode ?? SiteSearchMode.SITE_SEARCH_MODE_UNSPECIFIED) {
    case SiteSearchMode.SITE_SEARCH_MODE_UNSPECIFIED:
    case SiteSearchMode.SITE_SEARCH_MODE_DEFAULT:
      return {
        mode: "default",
        currentSiteSpaceId: scope?.currentSiteSpaceId ?? "",
        restrictTo:
          scope?.restrictTo === SiteSearchRestriction.SITE_SEARCH_RESTRICTION_CURRENT_SITE_SPACE
            ? "currentSiteSpace"
            : scope?.restrictTo === SiteSearchRestriction.SITE_SEARCH_RESTRICTION_OTHER_SITE_SPACES
              ? "otherSiteSpaces"
              : null,
      };
    case SiteSearchMode.SITE_SEARCH_MODE_SPECIFIC:
      return { mode: "specific", siteSpaceIds: scope?.siteSpaceIds ?? [] };
    case SiteSearchMode.SITE_SEARCH_MODE_ALL:
      return { mode: "all" };
    default:
      throw AppError.invalidArgument(`scope.mode: unknown mode ${String(scope?.mode)}`);
  }
}

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteServiceService> {
  return {
    listSites: async (request) => {
      const page = await listSites(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          spaceId: request.spaceId,
          title: request.title,
          published: request.published,
          types: request.types,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { sites: page.items.map(siteToProto), page: pageInfo(page) };
    },

    createSite: async (request) => {
      const view = await createSite(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          type: request.type,
          title: request.title,
          visibility: request.visibility,
          spaceIds: request.spaceIds,
        },
        deps,
      );
      return { site: siteToProto(view) };
    },

    getSite: async (request) => {
      const view = await getSite(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { site: siteToProto(view) };
    },

    batchGetSites: async (request) => {
      const views = await batchGetSites(em(), { caller: request.caller, organizationId: request.organizationId, siteIds: request.siteIds }, deps);
      return { sites: views.map(siteToProto) };
    },

    updateSite: async (request) => {
      const view = await updateSite(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          updateMask: request.updateMask,
          title: request.title,
          visibility: request.visibility,
          basename: request.basename,
          adaptiveContentEnabled: request.adaptiveContentEnabled,
          agentsContext: request.agentsContext,
          defaultSiteSpaceId: request.defaultSiteSpaceId,
          defaultSiteSectionId: request.defaultSiteSectionId,
          proxy: request.proxy,
          hostname: request.hostname,
        },
        deps,
      );
      return { site: siteToProto(view) };
    },

    deleteSite: async (request) => {
      await deleteSite(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return {};
    },

    publishSite: async (request) => {
      const view = await publishSite(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { site: siteToProto(view) };
    },

    prewarmSiteSearch: async (request) => {
      const result = await prewarmSiteSearch(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { updatedSpaces: result.updatedSpaces };
    },

    unpublishSite: async (request) => {
      const view = await unpublishSite(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { site: siteToProto(view) };
    },

    resolvePublishedUrl: async (request) =>
      resolvePublishedUrl(em(), { caller: request.caller, url: request.url, readerUrl: request.readerUrl, visitorAuthToken: request.visitorAuthToken }, deps),

    searchSiteContent: async (request) => {
      const answer = await searchSiteContent(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          query: request.query,
          scope: toSiteSearchScope(request.scope),
          page: request.page,
        },
        deps,
      );
      return { spaces: answer.spaces, pageInfo: answer.pageInfo };
    },

    getPublishedContentSite: async (request) => {
      const view = await getPublishedContentSite(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          shareKey: request.shareKey,
          knownVersion: request.knownVersion,
        },
        deps,
      );
      if ("notModified" in view) return { version: view.version, notModified: true, siteSpaceCustomizations: {} };
      return {
        version: view.version,
        notModified: false,
        site: siteToProto(view.site),
        structure: structureToProto(view.structure),
        customization: customizationToProto(view.customization),
        siteSpaceCustomizations: Object.fromEntries(
          view.siteSpaceCustomizations.map(({ siteSpaceId, customization }) => [siteSpaceId, { json: JSON.stringify(customization) }]),
        ),
      };
    },
  };
}
