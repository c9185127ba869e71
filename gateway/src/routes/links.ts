import { LinkStatus, type BacklinkListing, type LinkListing } from "@imprint/proto/content/v1/links";
import type { Caller } from "@imprint/proto/common/v1";
import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { toRestBacklinkList, toRestLinkList } from "../mappers/link.js";
import { toRestOrganization, type RestOrganization } from "../mappers/organization.js";
import { pageQueryShape, toPageRequest, type ListCursors } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId } from "../validation.js";
import { changeRequestContentPrefix, spaceContentPrefix, type ContentPrefix } from "./content.js";
import type { RouteDeps } from "./deps.js";

/**
 * Links and backlinks (GitBook 0.181.0's listSpaceLinks, listPageLinksInSpace,
 * listSpacePageBacklinks, listSpaceFileBacklinks). Like the content reads, every route is built
 * for a content prefix, so the change-request prefix reuses them with its own ContentRef.
 */
export interface LinkScope {
  /** The content prefix page and file routes hang under (`/v1/spaces/:spaceId/content`). */
  prefix: ContentPrefix;
  /** Where the whole link list lives (`/v1/spaces/:spaceId/links`). */
  linksPath: string;
}

export const spaceLinkScope: LinkScope = { prefix: spaceContentPrefix, linksPath: "/v1/spaces/:spaceId/links" };
/** listChangeRequestLinks, listPageLinksInChangeRequest, listChangeRequestPageBacklinks, listChangeRequestFileBacklinks. */
export const changeRequestLinkScope: LinkScope = {
  prefix: changeRequestContentPrefix,
  linksPath: "/v1/spaces/:spaceId/change-requests/:changeRequestId/links",
};

const STATUS_FILTER = { ok: LinkStatus.LINK_STATUS_OK, broken: LinkStatus.LINK_STATUS_BROKEN, "in-app": LinkStatus.LINK_STATUS_IN_APP } as const;

const linksQuery = z.object({ ...pageQueryShape, status: z.enum(["ok", "broken", "in-app"]).optional() });
const backlinksQuery = z.object(pageQueryShape);

export function linkRoutesFor(scope: LinkScope, { upstreams, urls }: RouteDeps): Route[] {
  const links = upstreams.content.links;
  const { prefix } = scope;
  const prefixParams = z.object(prefix.params);
  const pageParams = z.object({ ...prefix.params, pageId: pathId() });
  const fileParams = z.object({ ...prefix.params, fileId: pathId() });

  /** References embed the organization object: one identity call per answer. */
  const organizationOf = async (caller: Caller, listing: LinkListing | BacklinkListing | undefined): Promise<RestOrganization> => {
    const response = await upstreams.identity.organizations.getOrganization({ caller, organizationId: listing?.space?.organizationId ?? "" });
    return toRestOrganization(response.organization, urls);
  };
  const linkList = async (caller: Caller, listing: LinkListing | undefined, cursors: ListCursors) => {
    if (!listing) throw new AppError("internal", "upstream answered without a listing");
    return ok(toRestLinkList(listing, await organizationOf(caller, listing), urls, cursors));
  };
  const backlinkList = async (caller: Caller, listing: BacklinkListing | undefined, cursors: ListCursors) => {
    if (!listing) throw new AppError("internal", "upstream answered without a listing");
    return ok(toRestBacklinkList(listing, await organizationOf(caller, listing), urls, cursors));
  };
  const status = (query: z.output<typeof linksQuery>) => (query.status ? STATUS_FILTER[query.status] : LinkStatus.LINK_STATUS_UNSPECIFIED);

  return [
    // listSpaceLinks
    defineRoute({
      method: "GET",
      path: scope.linksPath,
      params: prefixParams,
      query: linksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await links.listLinks({
          caller: principal.caller,
          ref: prefix.ref(params),
          status: status(query),
          page: toPageRequest(query, cursors),
          appUrl: urls.app,
        });
        return linkList(principal.caller, response.listing, cursors);
      },
    }),

    // listPageLinksInSpace
    defineRoute({
      method: "GET",
      path: `${prefix.path}/page/:pageId/links`,
      params: pageParams,
      query: linksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await links.listPageLinks({
          caller: principal.caller,
          ref: prefix.ref(params),
          pageId: params.pageId,
          status: status(query),
          page: toPageRequest(query, cursors),
          appUrl: urls.app,
        });
        return linkList(principal.caller, response.listing, cursors);
      },
    }),

    // listSpacePageBacklinks
    defineRoute({
      method: "GET",
      path: `${prefix.path}/page/:pageId/backlinks`,
      params: pageParams,
      query: backlinksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await links.listPageBacklinks({
          caller: principal.caller,
          ref: prefix.ref(params),
          pageId: params.pageId,
          page: toPageRequest(query, cursors),
        });
        return backlinkList(principal.caller, response.listing, cursors);
      },
    }),

    // listSpaceFileBacklinks
    defineRoute({
      method: "GET",
      path: `${prefix.path}/files/:fileId/backlinks`,
      params: fileParams,
      query: backlinksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await links.listFileBacklinks({
          caller: principal.caller,
          ref: prefix.ref(params),
          fileId: params.fileId,
          page: toPageRequest(query, cursors),
        });
        return backlinkList(principal.caller, response.listing, cursors);
      },
    }),
  ];
}

/** The link routes of spaces and of change requests. */
export function linkRoutes(deps: RouteDeps): Route[] {
  return [spaceLinkScope, changeRequestLinkScope].flatMap((scope) => linkRoutesFor(scope, deps));
}
