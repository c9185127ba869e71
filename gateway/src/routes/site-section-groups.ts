import { z } from "zod";
import { siteLocation, toRestSiteSectionGroup } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId } from "../validation.js";
import type { RouteDeps } from "./deps.js";
import { siteParams } from "./sites.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const groupParams = siteParams.extend({ siteSectionGroupId: pathId() });
const groupSectionParams = groupParams.extend({ siteSectionId: pathId() });

/** addSectionGroupToSite: `parent` nests it in a group. */
export const addGroupBody = z.object({
  title: z.string(),
  icon: z.string().nullable().optional(),
  sections: z.array(pathId()).max(1000).optional(),
  parent: pathId().optional(),
  draft: z.boolean().optional(),
});

/** updateSiteSectionGroupById: `icon` null removes it; `parentSectionGroupId` null moves it to the top level. */
export const updateGroupBody = z.object({
  title: z.string().optional(),
  icon: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  parentSectionGroupId: pathId().nullable().optional(),
});

/** REST body → UpdateSiteSectionGroup fields plus an update mask naming exactly the fields the client sent. */
export function toUpdateSiteSectionGroupFields(body: z.output<typeof updateGroupBody>) {
  return toMaskedUpdate(
    body,
    { title: "", icon: "", draft: false, parentGroupId: "" },
    {
      title: ["title", (title) => ({ title })],
      icon: ["icon", (icon) => ({ icon: icon ?? "" })],
      draft: ["draft", (draft) => ({ draft })],
      parentSectionGroupId: ["parent_group_id", (parent) => ({ parentGroupId: parent ?? "" })],
    },
  );
}

const groupPointer = z.object({ type: z.enum(["site-section", "site-section-group"]), id: pathId() });

/** moveSiteSectionGroup (deprecated): before or after a top-level section or group; no position moves it to the end. */
export const moveGroupBody = z.object({ position: z.object({ before: groupPointer.optional(), after: groupPointer.optional() }).optional() }).optional();

export function siteSectionGroupRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const sectionGroups = upstreams.publishing.sectionGroups;
  return [
    // listSiteSectionGroups
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups",
      params: siteParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sectionGroups.listSiteSectionGroups({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(
          toPagedList(
            response.groups.map((group) => toRestSiteSectionGroup(group, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // addSectionGroupToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups",
      params: siteParams,
      body: addGroupBody,
      handler: async ({ params, body, principal }) => {
        const response = await sectionGroups.addSiteSectionGroup({
          caller: principal.caller,
          ...params,
          title: body.title,
          icon: body.icon ?? "",
          sectionIds: body.sections ?? [],
          parentGroupId: body.parent ?? "",
          draft: body.draft ?? false,
        });
        const group = toRestSiteSectionGroup(response.group, urls);
        return created(group, `${siteLocation(urls, params.organizationId, params.siteId)}/section-groups/${encodeURIComponent(group.id)}`);
      },
    }),

    // updateSiteSectionGroupById (`Prefer: return=minimal` is not applied)
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId",
      params: groupParams,
      body: updateGroupBody,
      handler: async ({ params, body, principal }) => {
        const response = await sectionGroups.updateSiteSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
          ...toUpdateSiteSectionGroupFields(body),
        });
        return ok(toRestSiteSectionGroup(response.group, urls));
      },
    }),

    // deleteSiteSectionGroupById: 204 whether or not it existed; its sections go back to the top level.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId",
      params: groupParams,
      handler: async ({ params, principal }) => {
        await sectionGroups.deleteSiteSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
        });
        return noContent();
      },
    }),

    // addSectionToGroup: the section moves to the end of the group.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections",
      params: groupParams,
      body: z.object({ sectionId: pathId() }),
      handler: async ({ params, body, principal }) => {
        const response = await sectionGroups.setSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
          sectionId: body.sectionId,
          member: true,
        });
        const group = toRestSiteSectionGroup(response.group, urls);
        return created(group, `${siteLocation(urls, params.organizationId, params.siteId)}/section-groups/${encodeURIComponent(group.id)}`);
      },
    }),

    // removeSectionFromGroup: 204 also when the section was not in the group; it goes to the end of the top level.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId",
      params: groupSectionParams,
      handler: async ({ params, principal }) => {
        await sectionGroups.setSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
          sectionId: params.siteSectionId,
          member: false,
        });
        return noContent();
      },
    }),

    // moveSiteSectionGroup (deprecated in GitBook, still served)
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move",
      params: groupParams,
      body: moveGroupBody,
      handler: async ({ params, body, principal }) => {
        const response = await sectionGroups.moveSiteSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
          beforeId: body?.position?.before?.id ?? "",
          afterId: body?.position?.after?.id ?? "",
        });
        return ok(toRestSiteSectionGroup(response.group, urls));
      },
    }),
  ];
}
