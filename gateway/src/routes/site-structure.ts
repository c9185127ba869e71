import { z } from "zod";
import { toRestSiteSection, toRestSiteSectionGroup, toRestSiteSpace, toRestSiteExternalLink, toRestSiteStructure } from "../mappers/site.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const structurePointer = z.object({ type: z.string(), id: pathId() });

/** sortSiteStructure: `item` and `position` required (an empty position moves the item to the end). */
export const sortSiteStructureBody = z.object({
  item: structurePointer,
  position: z.object({ before: structurePointer.optional(), after: structurePointer.optional() }),
});

export function siteStructureRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const structure = upstreams.publishing.structure;
  return [
    // getSiteStructure: the site-spaces (`type: siteSpaces`) until sites have sections; shareKey as for listSiteSpaces.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/structure",
      params: siteParams,
      query: z.object({ shareKey: queryParam.string(128).optional() }),
      handler: async ({ params, query, principal }) => {
        const response = await structure.getSiteStructure({ caller: principal.caller, ...params, shareKey: query.shareKey ?? "" });
        return ok(toRestSiteStructure(response, urls));
      },
    }),

    // sortSiteStructure: answers the moved item (`Prefer: return=minimal` is not applied).
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/structure/sort",
      params: siteParams,
      body: sortSiteStructureBody,
      handler: async ({ params, body, principal }) => {
        const response = await structure.sortSiteStructure({
          caller: principal.caller,
          ...params,
          item: body.item,
          before: body.position.before,
          after: body.position.after,
        });
        if (response.siteSectionGroup) return ok(toRestSiteSectionGroup(response.siteSectionGroup, urls));
        if (response.siteExternalLink) return ok(toRestSiteExternalLink(response.siteExternalLink));
        return ok(response.siteSection ? toRestSiteSection(response.siteSection, urls) : toRestSiteSpace(response.siteSpace, urls));
      },
    }),
  ];
}
