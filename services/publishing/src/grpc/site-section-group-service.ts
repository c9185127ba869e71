import type { SiteSectionGroupServiceService } from "@imprint/proto/publishing/v1/site_section_groups";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { addSiteSectionGroup } from "../use-cases/section-groups/add-site-section-group.js";
import { deleteSiteSectionGroup } from "../use-cases/section-groups/delete-site-section-group.js";
import { listSiteSectionGroups } from "../use-cases/section-groups/list-site-section-groups.js";
import { moveSiteSectionGroup } from "../use-cases/section-groups/move-site-section-group.js";
import { setSectionGroup } from "../use-cases/section-groups/set-section-group.js";
import { updateSiteSectionGroup } from "../use-cases/section-groups/update-site-section-group.js";
import { sectionGroupToProto } from "./mappers.js";

export const SITE_SECTION_GROUP_SERVICE_NAME = "imprint.publishing.v1.SiteSectionGroupService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteSectionGroupServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteSectionGroupServiceService> {
  return {
    listSiteSectionGroups: async (request) => {
      const page = await listSiteSectionGroups(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, page: pageRequest(request.page) },
        deps,
      );
      return { groups: page.items.map(sectionGroupToProto), page: pageInfo(page) };
    },

    addSiteSectionGroup: async (request) => {
      const view = await addSiteSectionGroup(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          title: request.title,
          icon: request.icon,
          sectionIds: request.sectionIds,
          parentGroupId: request.parentGroupId,
          draft: request.draft,
        },
        deps,
      );
      return { group: sectionGroupToProto(view) };
    },

    updateSiteSectionGroup: async (request) => {
      const view = await updateSiteSectionGroup(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          groupId: request.sectionGroupId,
          updateMask: request.updateMask,
          title: request.title,
          icon: request.icon,
          draft: request.draft,
          parentGroupId: request.parentGroupId,
        },
        deps,
      );
      return { group: sectionGroupToProto(view) };
    },

    deleteSiteSectionGroup: async (request) => {
      await deleteSiteSectionGroup(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, groupId: request.sectionGroupId },
        deps,
      );
      return {};
    },

    setSectionGroup: async (request) => {
      const view = await setSectionGroup(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          groupId: request.sectionGroupId,
          sectionId: request.sectionId,
          member: request.member,
        },
        deps,
      );
      return { group: view ? sectionGroupToProto(view) : undefined };
    },

    moveSiteSectionGroup: async (request) => {
      const view = await moveSiteSectionGroup(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          groupId: request.sectionGroupId,
          before: request.beforeId,
          after: request.afterId,
        },
        deps,
      );
      return { group: sectionGroupToProto(view) };
    },
  };
}
