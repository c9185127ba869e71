import type { SiteRedirectServiceService } from "@imprint/proto/publishing/v1/site_redirects";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { bulkUpsertSiteRedirects } from "../use-cases/redirects/bulk-upsert-site-redirects.js";
import { createSiteRedirect } from "../use-cases/redirects/create-site-redirect.js";
import { deleteSiteRedirect } from "../use-cases/redirects/delete-site-redirect.js";
import { getSiteRedirectBySource } from "../use-cases/redirects/get-site-redirect-by-source.js";
import { listSiteRedirects } from "../use-cases/redirects/list-site-redirects.js";
import { updateSiteRedirect } from "../use-cases/redirects/update-site-redirect.js";
import { destinationFromProto, siteAddress, siteRedirectToProto } from "./mappers.js";

export const SITE_REDIRECT_SERVICE_NAME = "imprint.publishing.v1.SiteRedirectService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteRedirectServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteRedirectServiceService> {
  return {
    listSiteRedirects: async (request) => {
      const page = await listSiteRedirects(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          search: request.search,
          draft: request.draft,
          orderBy: request.orderBy,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { redirects: page.items.map(siteRedirectToProto), page: pageInfo(page) };
    },

    getSiteRedirectBySource: async (request) => {
      const resolved = await getSiteRedirectBySource(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, source: request.source, shareKey: request.shareKey },
        deps,
      );
      return { redirect: siteRedirectToProto(resolved), site: siteAddress(resolved.site), targetUrl: resolved.targetUrl, targetPath: resolved.targetPath };
    },

    createSiteRedirect: async (request) => {
      const view = await createSiteRedirect(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          source: request.source,
          captureWildcard: request.captureWildcard,
          draft: request.draft,
          permanent: request.permanent,
          destination: destinationFromProto(request.destination),
        },
        deps,
      );
      return { redirect: siteRedirectToProto(view) };
    },

    updateSiteRedirect: async (request) => {
      const view = await updateSiteRedirect(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteRedirectId: request.siteRedirectId,
          updateMask: request.updateMask,
          source: request.source,
          captureWildcard: request.captureWildcard,
          draft: request.draft,
          permanent: request.permanent,
          destination: request.destination && destinationFromProto(request.destination),
        },
        deps,
      );
      return { redirect: siteRedirectToProto(view) };
    },

    deleteSiteRedirect: async (request) => {
      const { existed } = await deleteSiteRedirect(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteRedirectId: request.siteRedirectId },
        deps,
      );
      return { existed };
    },

    bulkUpsertSiteRedirects: async (request) => {
      const results = await bulkUpsertSiteRedirects(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          redirects: request.redirects.map((item) => ({
            source: item.source,
            intent: item.intent,
            captureWildcard: item.captureWildcard,
            permanent: item.permanent,
            destination: item.destination && destinationFromProto(item.destination),
          })),
        },
        deps,
      );
      return { results: results.map((result) => ({ id: "", error: "", ...result })) };
    },
  };
}
