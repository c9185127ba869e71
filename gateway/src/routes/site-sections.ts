import { z } from "zod";
import { siteLocation, toRestSiteSection } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const sectionParams = siteParams.extend({ siteSectionId: pathId() });
const listSectionsQuery = z.object({ ...pageQueryShape, shareKey: queryParam.string(128).optional() });

/** addSectionToSite: an existing space (`null`, a new space, is not supported); `siteSectionGroupId` is not either (POST …/section-groups/{id}/sections moves it in). */
export const addSectionBody = z.object({
  spaceId: pathId(),
  title: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  siteSectionGroupId: z.undefined({ error: "section groups are not supported yet" }).optional(),
});

/** updateSiteSectionById: `condition`, `description` and `icon` null remove them. */
export const updateSectionBody = z.object({
  title: z.string().optional(),
  path: z.string().optional(),
  defaultSiteSpace: pathId().optional(),
  condition: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  siteSectionGroupId: z
    .undefined({ error: "use POST or DELETE …/section-groups/{siteSectionGroupId}/sections to move a section into or out of a group" })
    .optional(),
});

/** REST body → UpdateSiteSection fields plus an update mask naming exactly the fields the client sent; null removes. */
export function toUpdateSiteSectionFields({ siteSectionGroupId: _refused, ...body }: z.output<typeof updateSectionBody>) {
  return toMaskedUpdate(
    body,
    { title: "", path: "", description: "", icon: "", condition: "", defaultSiteSpaceId: "", draft: false },
    {
      title: ["title", (title) => ({ title })],
      path: ["path", (path) => ({ path })],
      defaultSiteSpace: ["default_site_space_id", (defaultSiteSpaceId) => ({ defaultSiteSpaceId })],
      condition: ["condition", (condition) => ({ condition: condition ?? "" })],
      icon: ["icon", (icon) => ({ icon: icon ?? "" })],
      description: ["description", (description) => ({ description: description ?? "" })],
      draft: ["draft", (draft) => ({ draft })],
    },
  );
}

const sectionPointer = z.object({ type: z.literal("site-section"), siteSection: pathId() });

/** moveSiteSection: no position moves it to the end. */
export const moveSectionBody = z.object({ position: z.object({ before: sectionPointer.optional(), after: sectionPointer.optional() }).optional() }).optional();

export function siteSectionRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const sections = upstreams.publishing.sections;
  return [
    // listSiteSections: each with its site-spaces; shareKey as for listSiteSpaces.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections",
      params: siteParams,
      query: listSectionsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sections.listSiteSections({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          shareKey: query.shareKey ?? "",
        });
        return ok(
          toPagedList(
            response.sections.map((section) => toRestSiteSection(section, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // addSectionToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections",
      params: siteParams,
      body: addSectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await sections.addSiteSection({
          caller: principal.caller,
          ...params,
          spaceId: body.spaceId,
          title: body.title ?? "",
          icon: body.icon ?? "",
          draft: body.draft ?? false,
        });
        const section = toRestSiteSection(response.section, urls);
        return created(section, `${siteLocation(urls, params.organizationId, params.siteId)}/sections/${encodeURIComponent(section.id)}`);
      },
    }),

    // updateSiteSectionById (`Prefer: return=minimal` is not applied)
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId",
      params: sectionParams,
      body: updateSectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await sections.updateSiteSection({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionId: params.siteSectionId,
          ...toUpdateSiteSectionFields(body),
        });
        return ok(toRestSiteSection(response.section, urls));
      },
    }),

    // deleteSiteSectionById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId",
      params: sectionParams,
      handler: async ({ params, principal }) => {
        await sections.deleteSiteSection({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionId: params.siteSectionId,
        });
        return noContent();
      },
    }),

    // moveSiteSection (deprecated in GitBook, still served)
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move",
      params: sectionParams,
      body: moveSectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await sections.moveSiteSection({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionId: params.siteSectionId,
          beforeSectionId: body?.position?.before?.siteSection ?? "",
          afterSectionId: body?.position?.after?.siteSection ?? "",
        });
        return ok(toRestSiteSection(response.section, urls));
      },
    }),
  ];
}
