import { forkEm, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import { LinkServiceService } from "@imprint/proto/content/v1/links";
import type { MikroORM } from "@mikro-orm/postgresql";
import { contentRefFromProto } from "../../revisions/index.js";
import { listBacklinks } from "../use-cases/list-backlinks.js";
import { getEmbed } from "../use-cases/get-embed.js";
import { listLinks } from "../use-cases/list-links.js";
import { backlinkListingToProto, linkListingToProto, statusFilterFromProto } from "./mappers.js";
import type { LinkDeps } from "../deps.js";

export const LINK_SERVICE_NAME = "imprint.content.v1.LinkService";

/** Thin transport over the links use cases: every call resolves its ContentRef like other reads. */
export function linkServiceImplementation(orm: MikroORM, deps: LinkDeps): AsyncImplementation<typeof LinkServiceService> {
  const em = () => forkEm(orm);
  return {
    listLinks: async (request) => {
      const list = await listLinks(
        em(),
        {
          caller: request.caller,
          ref: contentRefFromProto(request.ref),
          status: statusFilterFromProto(request.status),
          page: pageRequest(request.page),
          appUrl: request.appUrl,
        },
        deps,
      );
      return { listing: linkListingToProto(list, deps.signer, deps.clock()) };
    },

    listPageLinks: async (request) => {
      const list = await listLinks(
        em(),
        {
          caller: request.caller,
          ref: contentRefFromProto(request.ref),
          pageId: request.pageId,
          status: statusFilterFromProto(request.status),
          page: pageRequest(request.page),
          appUrl: request.appUrl,
        },
        deps,
      );
      return { listing: linkListingToProto(list, deps.signer, deps.clock()) };
    },

    listPageBacklinks: async (request) => {
      const list = await listBacklinks(
        em(),
        { caller: request.caller, ref: contentRefFromProto(request.ref), target: { pageId: request.pageId }, page: pageRequest(request.page) },
        deps,
      );
      return { listing: backlinkListingToProto(list) };
    },

    getEmbed: async (request) => {
      const embed = await getEmbed({ caller: request.caller, url: request.url }, deps);
      return { title: embed.title, site: embed.site, icon: embed.icon ?? "" };
    },

    listFileBacklinks: async (request) => {
      const list = await listBacklinks(
        em(),
        { caller: request.caller, ref: contentRefFromProto(request.ref), target: { fileId: request.fileId }, page: pageRequest(request.page) },
        deps,
      );
      return { listing: backlinkListingToProto(list) };
    },
  };
}
