import { z } from "zod";
import { siteLocation, toRestSiteExternalLink } from "../mappers/site.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const externalLinkParams = siteParams.extend({ siteExternalLinkId: pathId() });

/** addExternalLinkToSite: `parent` puts it in a group; null description, icon or condition means none. */
export const addExternalLinkBody = z.object({
  title: z.string(),
  url: z.string(),
  description: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  parent: pathId().optional(),
  draft: z.boolean().optional(),
  condition: z.string().nullable().optional(),
});

/** updateSiteExternalLinkById: null description, icon or condition removes it; `parent` null moves it to the top level. */
export const updateExternalLinkBody = z.object({
  title: z.string().optional(),
  url: z.string().optional(),
  description: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  parent: pathId().nullable().optional(),
  draft: z.boolean().optional(),
  condition: z.string().nullable().optional(),
});

/** REST body → UpdateSiteExternalLink fields plus an update mask naming exactly the fields the client sent; null removes. */
export function toUpdateSiteExternalLinkFields(body: z.output<typeof updateExternalLinkBody>) {
  return toMaskedUpdate(
    body,
    { title: "", url: "", description: "", icon: "", condition: "", sectionGroupId: "", draft: false },
    {
      title: ["title", (title) => ({ title })],
      url: ["url", (url) => ({ url })],
      description: ["description", (description) => ({ description: description ?? "" })],
      icon: ["icon", (icon) => ({ icon: icon ?? "" })],
      parent: ["section_group_id", (parent) => ({ sectionGroupId: parent ?? "" })],
      draft: ["draft", (draft) => ({ draft })],
      condition: ["condition", (condition) => ({ condition: condition ?? "" })],
    },
  );
}

export function siteExternalLinkRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const externalLinks = upstreams.publishing.externalLinks;
  return [
    // addExternalLinkToSite: at the end of the top level or of the group named by `parent` (sites with sections).
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/external-links",
      params: siteParams,
      body: addExternalLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await externalLinks.addSiteExternalLink({
          caller: principal.caller,
          ...params,
          title: body.title,
          url: body.url,
          description: body.description ?? "",
          icon: body.icon ?? "",
          condition: body.condition ?? "",
          sectionGroupId: body.parent ?? "",
          draft: body.draft ?? false,
        });
        const link = toRestSiteExternalLink(response.link);
        return created(link, `${siteLocation(urls, params.organizationId, params.siteId)}/external-links/${encodeURIComponent(link.id)}`);
      },
    }),

    // updateSiteExternalLinkById (`Prefer: return=minimal` is not applied).
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/external-links/:siteExternalLinkId",
      params: externalLinkParams,
      body: updateExternalLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await externalLinks.updateSiteExternalLink({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          linkId: params.siteExternalLinkId,
          ...toUpdateSiteExternalLinkFields(body),
        });
        return ok(toRestSiteExternalLink(response.link));
      },
    }),

    // deleteSiteExternalLinkById: 205 when it was deleted, 204 when it did not exist.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/external-links/:siteExternalLinkId",
      params: externalLinkParams,
      handler: async ({ params, principal }) => {
        const response = await externalLinks.deleteSiteExternalLink({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          linkId: params.siteExternalLinkId,
        });
        return response.removed ? resetContent() : noContent();
      },
    }),
  ];
}
