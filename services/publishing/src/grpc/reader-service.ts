import type { ReaderServiceService } from "@imprint/proto/publishing/v1/reader";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import { checkShareKey, getReaderSite } from "../use-cases/reader/get-reader-site.js";
import { listReaderSiteRedirects } from "../use-cases/reader/list-reader-site-redirects.js";
import { readerRedirectToProto, readerSiteToProto } from "./mappers.js";

export const READER_SERVICE_NAME = "imprint.publishing.v1.ReaderService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function readerServiceImplementation(em: () => EntityManager): AsyncImplementation<typeof ReaderServiceService> {
  return {
    getReaderSite: async (request) => {
      const view = await getReaderSite(em(), { hostname: request.hostname, organizationId: request.organizationId, site: request.site });
      return readerSiteToProto(view);
    },

    checkShareKey: async (request) => ({ active: await checkShareKey(em(), { siteId: request.siteId, key: request.key }) }),

    listReaderSiteRedirects: async (request) => ({ redirects: (await listReaderSiteRedirects(em(), { siteId: request.siteId })).map(readerRedirectToProto) }),
  };
}
