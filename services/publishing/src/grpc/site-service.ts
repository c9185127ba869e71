import type { SiteServiceService } from "@imprint/proto/publishing/v1/sites";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, parseRequestJson, type AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { addSiteSection } from "../use-cases/add-site-section.js";
import { addSiteSectionGroup } from "../use-cases/add-site-section-group.js";
import { deleteSiteSectionGroup } from "../use-cases/delete-site-section-group.js";
import { listSiteSectionGroups } from "../use-cases/list-site-section-groups.js";
import { moveSiteSectionGroup } from "../use-cases/move-site-section-group.js";
import { setSectionGroup } from "../use-cases/set-section-group.js";
import { updateSiteSectionGroup } from "../use-cases/update-site-section-group.js";
import { addSiteSpace } from "../use-cases/add-site-space.js";
import { deleteSiteSection } from "../use-cases/delete-site-section.js";
import { listSiteSections } from "../use-cases/list-site-sections.js";
import { moveSiteSection } from "../use-cases/move-site-section.js";
import { updateSiteSection } from "../use-cases/update-site-section.js";
import { createShareLink } from "../use-cases/create-share-link.js";
import { createSite } from "../use-cases/create-site.js";
import { deleteShareLink } from "../use-cases/delete-share-link.js";
import { deleteSite } from "../use-cases/delete-site.js";
import { deleteSiteSpace } from "../use-cases/delete-site-space.js";
import { batchGetSites } from "../use-cases/batch-get-sites.js";
import { getSite } from "../use-cases/get-site.js";
import { getSiteAdaptiveSchema } from "../use-cases/get-site-adaptive-schema.js";
import { getSitePublishingAuth } from "../use-cases/get-site-publishing-auth.js";
import { addSiteExternalLink } from "../use-cases/add-site-external-link.js";
import { deleteSiteExternalLink } from "../use-cases/delete-site-external-link.js";
import { checkShareKey, getReaderSite } from "../use-cases/get-reader-site.js";
import { issueMemberVisitorToken } from "../use-cases/issue-member-visitor-token.js";
import { verifyMemberVisitorToken } from "../use-cases/verify-member-visitor-token.js";
import { deleteSiteSpaceCustomization } from "../use-cases/delete-site-space-customization.js";
import { updateSiteExternalLink } from "../use-cases/update-site-external-link.js";
import { getPublishedContentSite } from "../use-cases/get-published-content-site.js";
import { getSiteCustomization } from "../use-cases/get-site-customization.js";
import { getSiteSpaceCustomization } from "../use-cases/get-site-space-customization.js";
import { getSiteStructure } from "../use-cases/get-site-structure.js";
import { overrideSiteSpaceCustomization } from "../use-cases/override-site-space-customization.js";
import { updateSiteCustomization } from "../use-cases/update-site-customization.js";
import { listShareLinks } from "../use-cases/list-share-links.js";
import { listSiteAdaptiveTemplateConditions } from "../use-cases/list-site-adaptive-template-conditions.js";
import { listSiteSpaces } from "../use-cases/list-site-spaces.js";
import { listSites } from "../use-cases/list-sites.js";
import { moveSiteSpace } from "../use-cases/move-site-space.js";
import { publishSite } from "../use-cases/publish-site.js";
import { regenerateSitePublishingAuth } from "../use-cases/regenerate-site-publishing-auth.js";
import { sortSiteStructure } from "../use-cases/sort-site-structure.js";
import { unpublishSite } from "../use-cases/unpublish-site.js";
import { updateShareLink } from "../use-cases/update-share-link.js";
import { updateSite } from "../use-cases/update-site.js";
import { updateSiteAdaptiveSchema } from "../use-cases/update-site-adaptive-schema.js";
import { updateSitePublishingAuth } from "../use-cases/update-site-publishing-auth.js";
import { updateSiteSpace } from "../use-cases/update-site-space.js";
import { announceSpacePublications } from "../use-cases/announce-space-publications.js";
import {
  customizationToProto,
  externalLinkToProto,
  publishingAuthToProto,
  readerSiteToProto,
  sectionGroupToProto,
  sectionToProto,
  shareLinkToProto,
  siteSpaceToProto,
  siteToProto,
  structureToProto,
} from "./mappers.js";

export const SITE_SERVICE_NAME = "imprint.publishing.v1.SiteService";

/** JSON text from the wire: text that does not parse, or nests past MAX_JSON_DEPTH, is the caller's mistake (`field` names it). */
function parseJson(text: string, field: string): unknown {
  return parseRequestJson(text, field, { malformed: "must be JSON" });
}

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function siteServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SiteServiceService> {
  return {
    announceSpacePublications: async (request) => ({ spaces: await announceSpacePublications(em(), { spaceId: request.spaceId }, deps) }),

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
        { caller: request.caller, organizationId: request.organizationId, type: request.type, title: request.title, visibility: request.visibility, spaceIds: request.spaceIds },
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

    unpublishSite: async (request) => {
      const view = await unpublishSite(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { site: siteToProto(view) };
    },

    listSiteSections: async (request) => {
      const page = await listSiteSections(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareKey: request.shareKey, page: pageRequest(request.page) },
        deps,
      );
      return { sections: page.items.map(sectionToProto), page: pageInfo(page) };
    },

    addSiteSection: async (request) => {
      const view = await addSiteSection(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, spaceId: request.spaceId, title: request.title, icon: request.icon, draft: request.draft },
        deps,
      );
      return { section: sectionToProto(view) };
    },

    updateSiteSection: async (request) => {
      const view = await updateSiteSection(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          sectionId: request.sectionId,
          title: request.title,
          path: request.path,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          defaultSiteSpaceId: request.defaultSiteSpaceId,
          draft: request.draft,
        },
        deps,
      );
      return { section: sectionToProto(view) };
    },

    deleteSiteSection: async (request) => {
      await deleteSiteSection(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, sectionId: request.sectionId }, deps);
      return {};
    },

    moveSiteSection: async (request) => {
      const view = await moveSiteSection(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          sectionId: request.sectionId,
          before: request.beforeSectionId,
          after: request.afterSectionId,
        },
        deps,
      );
      return { section: sectionToProto(view) };
    },

    listSiteSectionGroups: async (request) => {
      const page = await listSiteSectionGroups(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, page: pageRequest(request.page) }, deps);
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
      await deleteSiteSectionGroup(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, groupId: request.sectionGroupId }, deps);
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

    listSiteSpaces: async (request) => {
      const page = await listSiteSpaces(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          isDefault: request.default,
          shareKey: request.shareKey,
          page: pageRequest(request.page),
        },
        deps,
      );
      return { siteSpaces: page.items.map(siteSpaceToProto), page: pageInfo(page) };
    },

    addSiteSpace: async (request) => {
      const view = await addSiteSpace(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, spaceId: request.spaceId, sectionId: request.sectionId, draft: request.draft },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    updateSiteSpace: async (request) => {
      const view = await updateSiteSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteSpaceId: request.siteSpaceId,
          path: request.path,
          condition: request.condition,
          spaceId: request.spaceId,
          draft: request.draft,
        },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    deleteSiteSpace: async (request) => {
      await deleteSiteSpace(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId }, deps);
      return {};
    },

    moveSiteSpace: async (request) => {
      const view = await moveSiteSpace(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          siteSpaceId: request.siteSpaceId,
          before: request.beforeSiteSpaceId,
          after: request.afterSiteSpaceId,
        },
        deps,
      );
      return { siteSpace: siteSpaceToProto(view) };
    },

    getSiteStructure: async (request) => {
      const structure = structureToProto(
        await getSiteStructure(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareKey: request.shareKey }, deps),
      );
      return { ...structure, sections: structure.items.flatMap((item) => (item.section ? [item.section] : [])) };
    },

    getPublishedContentSite: async (request) => {
      const view = await getPublishedContentSite(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareKey: request.shareKey, knownVersion: request.knownVersion },
        deps,
      );
      if ("notModified" in view) return { version: view.version, notModified: true, siteSpaceCustomizations: {} };
      return {
        version: view.version,
        notModified: false,
        site: siteToProto(view.site),
        structure: structureToProto(view.structure),
        customization: customizationToProto(view.customization),
        siteSpaceCustomizations: Object.fromEntries(view.siteSpaceCustomizations.map(({ siteSpaceId, customization }) => [siteSpaceId, { json: JSON.stringify(customization) }])),
      };
    },

    getSiteCustomization: async (request) => {
      const view = await getSiteCustomization(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { customization: customizationToProto(view) };
    },

    updateSiteCustomization: async (request) => {
      const view = await updateSiteCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, customization: parseJson(request.customizationJson, "body") },
        deps,
      );
      return { customization: customizationToProto(view) };
    },

    getSiteSpaceCustomization: async (request) => {
      const view = await getSiteSpaceCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId },
        deps,
      );
      return { customization: customizationToProto(view), hasOverrides: view.hasOverrides };
    },

    overrideSiteSpaceCustomization: async (request) => {
      const view = await overrideSiteSpaceCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId, override: parseJson(request.overrideJson, "body") },
        deps,
      );
      return { customization: customizationToProto(view), hasOverrides: view.hasOverrides };
    },

    deleteSiteSpaceCustomization: async (request) => {
      const { removed } = await deleteSiteSpaceCustomization(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, siteSpaceId: request.siteSpaceId },
        deps,
      );
      return { removed };
    },

    sortSiteStructure: async (request) => {
      const moved = await sortSiteStructure(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, item: request.item, before: request.before, after: request.after },
        deps,
      );
      if (moved.type === "site-section-group") return { siteSectionGroup: sectionGroupToProto(moved.group) };
      if (moved.type === "site-external-link") return { siteExternalLink: externalLinkToProto(moved.link) };
      return moved.type === "site-section" ? { siteSection: sectionToProto(moved.section) } : { siteSpace: siteSpaceToProto(moved.siteSpace) };
    },

    addSiteExternalLink: async (request) => {
      const view = await addSiteExternalLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          title: request.title,
          url: request.url,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          sectionGroupId: request.sectionGroupId,
          draft: request.draft,
        },
        deps,
      );
      return { link: externalLinkToProto(view) };
    },

    updateSiteExternalLink: async (request) => {
      const view = await updateSiteExternalLink(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          linkId: request.linkId,
          title: request.title,
          url: request.url,
          description: request.description,
          icon: request.icon,
          condition: request.condition,
          sectionGroupId: request.sectionGroupId,
          draft: request.draft,
        },
        deps,
      );
      return { link: externalLinkToProto(view) };
    },

    issueMemberVisitorToken: async (request) => ({
      token: await issueMemberVisitorToken(em(), { caller: request.caller, organizationId: request.organizationId }, deps),
    }),

    getReaderSite: async (request) => {
      const view = await getReaderSite(em(), { hostname: request.hostname, organizationId: request.organizationId, site: request.site });
      return readerSiteToProto(view);
    },

    checkShareKey: async (request) => ({ active: await checkShareKey(em(), { siteId: request.siteId, key: request.key }) }),

    verifyMemberVisitorToken: async (request) => {
      const claims = await verifyMemberVisitorToken(em(), { organizationId: request.organizationId, token: request.token }, deps);
      return claims
        ? { valid: true, userId: claims.userId, email: claims.email, role: claims.role, teams: claims.teams, expiresAt: claims.expiresAt }
        : { valid: false, userId: "", email: "", role: "", teams: [] };
    },

    deleteSiteExternalLink: async (request) => {
      const { removed } = await deleteSiteExternalLink(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, linkId: request.linkId }, deps);
      return { removed };
    },

    getSitePublishingAuth: async (request) => {
      const auth = await getSitePublishingAuth(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { auth: publishingAuthToProto(auth) };
    },

    updateSitePublishingAuth: async (request) => {
      const auth = await updateSitePublishingAuth(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          siteId: request.siteId,
          backend: request.backend,
          fallbackUrl: request.fallbackUrl,
          logoutUrl: request.logoutUrl,
        },
        deps,
      );
      return { auth: publishingAuthToProto(auth) };
    },

    regenerateSitePublishingAuth: async (request) => {
      const auth = await regenerateSitePublishingAuth(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { auth: publishingAuthToProto(auth) };
    },

    getSiteAdaptiveSchema: async (request) => {
      const view = await getSiteAdaptiveSchema(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { jsonSchema: JSON.stringify(view.jsonSchema), updatedAt: view.updatedAt };
    },

    updateSiteAdaptiveSchema: async (request) => {
      const view = await updateSiteAdaptiveSchema(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, jsonSchema: parseJson(request.jsonSchema, "jsonSchema") },
        deps,
      );
      return { jsonSchema: JSON.stringify(view.jsonSchema), updatedAt: view.updatedAt };
    },

    listSiteAdaptiveTemplateConditions: async (request) => {
      const conditions = await listSiteAdaptiveTemplateConditions(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId }, deps);
      return { conditions };
    },

    listShareLinks: async (request) => {
      const page = await listShareLinks(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, search: request.search, page: pageRequest(request.page) },
        deps,
      );
      return { shareLinks: page.items.map(shareLinkToProto), page: pageInfo(page) };
    },

    createShareLink: async (request) => {
      const view = await createShareLink(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, name: request.name }, deps);
      return { shareLink: shareLinkToProto(view) };
    },

    updateShareLink: async (request) => {
      const view = await updateShareLink(
        em(),
        { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareLinkId: request.shareLinkId, name: request.name, active: request.active },
        deps,
      );
      return { shareLink: shareLinkToProto(view) };
    },

    deleteShareLink: async (request) => {
      await deleteShareLink(em(), { caller: request.caller, organizationId: request.organizationId, siteId: request.siteId, shareLinkId: request.shareLinkId }, deps);
      return {};
    },
  };
}
