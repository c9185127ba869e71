import type { GetPublishedContentSiteResponse } from "@imprint/proto/publishing/v1/sites";
import { z } from "zod";
import { AnswerCache } from "../answer-cache.js";
import {
  siteLocation,
  toRestCustomization,
  toRestPublishingAuth,
  toRestShareLink,
  toRestSite,
  toRestSiteSection,
  toRestSiteSectionGroup,
  toRestSiteSpace,
  toRestSiteExternalLink,
  toRestSiteStructure,
} from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, resetContent, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
const siteParams = z.object({ organizationId: pathId(), siteId: pathId() });
const siteSpaceParams = siteParams.extend({ siteSpaceId: pathId() });
const sectionParams = siteParams.extend({ siteSectionId: pathId() });
const groupParams = siteParams.extend({ siteSectionGroupId: pathId() });
const groupSectionParams = groupParams.extend({ siteSectionId: pathId() });
const shareLinkParams = siteParams.extend({ shareLinkId: pathId() });
const externalLinkParams = siteParams.extend({ siteExternalLinkId: pathId() });

/** `type` may repeat (`type=basic&type=premium`); a comma-separated value is read too. */
const typesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((entry) => entry.split(",")).map((type) => type.trim()).filter((type) => type !== ""))
  .pipe(z.array(z.string().max(64)).max(16));

export const listSitesQuery = z.object({
  ...pageQueryShape,
  space: pathId().optional(),
  title: queryParam.string(128).optional(),
  published: queryParam.boolean().optional(),
  type: typesParam.optional(),
});

/** createSite: every field optional; `spaces` are ids (creating a new space for the site is not supported). */
export const createSiteBody = z
  .object({ type: z.string().optional(), title: z.string().optional(), visibility: z.string().optional(), spaces: z.array(pathId()).optional() })
  .optional();

/** updateSiteById: `proxy` and `hostname` null remove them; `defaultLevel` is always `inherit`. */
export const updateSiteBody = z.object({
  title: z.string().optional(),
  visibility: z.string().optional(),
  basename: z.string().optional(),
  adaptiveContent: z.object({ enabled: z.boolean() }).optional(),
  agentsContext: z.string().optional(),
  defaultSiteSpace: pathId().optional(),
  defaultSiteSection: pathId().optional(),
  proxy: z.string().nullable().optional(),
  hostname: z.string().nullable().optional(),
  defaultLevel: z.literal("inherit", { error: "sites always inherit the organization's default level: only inherit is accepted" }).optional(),
});

export function toUpdateSiteFields(body: z.output<typeof updateSiteBody>) {
  return {
    title: body.title,
    visibility: body.visibility,
    basename: body.basename,
    adaptiveContentEnabled: body.adaptiveContent?.enabled,
    agentsContext: body.agentsContext,
    defaultSiteSpaceId: body.defaultSiteSpace,
    defaultSiteSectionId: body.defaultSiteSection,
    proxy: body.proxy === null ? "" : body.proxy,
    hostname: body.hostname === null ? "" : body.hostname,
  };
}

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
  siteSectionGroupId: z.undefined({ error: "use POST or DELETE …/section-groups/{siteSectionGroupId}/sections to move a section into or out of a group" }).optional(),
});

const sectionPointer = z.object({ type: z.literal("site-section"), siteSection: pathId() });
/** moveSiteSection: no position moves it to the end. */
export const moveSectionBody = z.object({ position: z.object({ before: sectionPointer.optional(), after: sectionPointer.optional() }).optional() }).optional();

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

const groupPointer = z.object({ type: z.enum(["site-section", "site-section-group"]), id: pathId() });
/** moveSiteSectionGroup (deprecated): before or after a top-level section or group; no position moves it to the end. */
export const moveGroupBody = z.object({ position: z.object({ before: groupPointer.optional(), after: groupPointer.optional() }).optional() }).optional();

const nullToEmpty = (value: string | null | undefined) => (value === null ? "" : value);

const listSiteSpacesQuery = z.object({ ...pageQueryShape, shareKey: queryParam.string(128).optional(), default: queryParam.boolean().optional() });

/** addSpaceToSite: an existing space (`null`, a new space, is not supported); custom home pages are not either. */
export const addSiteSpaceBody = z.object({
  spaceId: pathId(),
  sectionId: pathId().optional(),
  draft: z.boolean().optional(),
  pageId: z.null({ error: "custom home pages are not supported yet" }).optional(),
});

/** updateSiteSpaceById: `condition` null removes it. */
export const updateSiteSpaceBody = z.object({
  path: z.string().optional(),
  condition: z.string().nullable().optional(),
  spaceId: pathId().optional(),
  draft: z.boolean().optional(),
  hidden: z.literal(false, { error: "hidden site-spaces are not supported yet" }).optional(),
  pageId: z.null({ error: "custom home pages are not supported yet" }).optional(),
});

const siteSpacePointer = z.object({ type: z.literal("site-space"), siteSpace: pathId() });
/** moveSiteSpace: no position moves it to the end. */
export const moveSiteSpaceBody = z.object({ position: z.object({ before: siteSpacePointer.optional(), after: siteSpacePointer.optional() }).optional() }).optional();

const structurePointer = z.object({ type: z.string(), id: pathId() });
/** sortSiteStructure: `item` and `position` required (an empty position moves the item to the end). */
export const sortSiteStructureBody = z.object({
  item: structurePointer,
  position: z.object({ before: structurePointer.optional(), after: structurePointer.optional() }),
});

/** updateSitePublishingAuthById: `backend` required; a URL null unsets it. */
export const updatePublishingAuthBody = z.object({
  backend: z.string(),
  fallbackURL: z.string().nullable().optional(),
  logoutURL: z.string().nullable().optional(),
});

/** updateSiteAdaptiveSchema: `jsonSchema` an object; its rules (draft-07, claims, descriptions) are the service's. */
export const updateAdaptiveSchemaBody = z.object({ jsonSchema: z.record(z.string(), z.unknown()) });
/** A customization or an override: an object, checked against GitBook's schema by the publishing service. */
export const customizationBody = z.record(z.string(), z.unknown());
const customizationQuery = z.object({ unmasked: queryParam.boolean().optional() });

const listShareLinksQuery = z.object({ ...pageQueryShape, search: queryParam.string(128).optional() });
export const createShareLinkBody = z.object({ name: z.string() });
export const updateShareLinkBody = z
  .object({ active: z.boolean().optional(), name: z.string().optional() })
  .refine((body) => body.active !== undefined || body.name !== undefined, { error: "must contain active or name" });

/** A caller's last published view of a site, identified by the version publishing gave it. */
type PublishedViewEntry = { version: string; json: Buffer };

export function siteRoutes({ upstreams, urls, caches }: RouteDeps): Route[] {
  const sites = upstreams.publishing;
  const publishedViews = new AnswerCache<PublishedViewEntry>(caches.cache("published views"));
  return [
    // listSites
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites",
      params: z.object({ organizationId: pathId() }),
      query: listSitesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sites.listSites({
          caller: principal.caller,
          organizationId: params.organizationId,
          page: toPageRequest(query, cursors),
          spaceId: query.space ?? "",
          title: query.title ?? "",
          published: query.published,
          types: query.type ?? [],
        });
        return ok(toPagedList(response.sites.map((site) => toRestSite(site, urls)), response.page, cursors));
      },
    }),

    // createSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites",
      params: z.object({ organizationId: pathId() }),
      body: createSiteBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.createSite({
          caller: principal.caller,
          organizationId: params.organizationId,
          type: body?.type ?? "",
          title: body?.title ?? "",
          visibility: body?.visibility ?? "",
          spaceIds: body?.spaces ?? [],
        });
        const site = toRestSite(response.site, urls);
        return created(site, siteLocation(urls, params.organizationId, site.id));
      },
    }),

    // getSiteById
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.getSite({ caller: principal.caller, ...params });
        return ok(toRestSite(response.site, urls));
      },
    }),

    // updateSiteById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId",
      params: siteParams,
      body: updateSiteBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateSite({ caller: principal.caller, ...params, ...toUpdateSiteFields(body) });
        return ok(toRestSite(response.site, urls));
      },
    }),

    // deleteSiteById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId",
      params: siteParams,
      handler: async ({ params, principal }) => {
        await sites.deleteSite({ caller: principal.caller, ...params });
        return noContent();
      },
    }),

    // publishSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/publish",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.publishSite({ caller: principal.caller, ...params });
        return ok(toRestSite(response.site, urls));
      },
    }),

    // unpublishSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/unpublish",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.unpublishSite({ caller: principal.caller, ...params });
        return ok(toRestSite(response.site, urls));
      },
    }),

    // listSiteSections: each with its site-spaces; shareKey as for listSiteSpaces.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections",
      params: siteParams,
      query: listSectionsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sites.listSiteSections({ caller: principal.caller, ...params, page: toPageRequest(query, cursors), shareKey: query.shareKey ?? "" });
        return ok(toPagedList(response.sections.map((section) => toRestSiteSection(section, urls)), response.page, cursors));
      },
    }),

    // addSectionToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/sections",
      params: siteParams,
      body: addSectionBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.addSiteSection({ caller: principal.caller, ...params, spaceId: body.spaceId, title: body.title ?? "", icon: body.icon ?? "", draft: body.draft ?? false });
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
        const response = await sites.updateSiteSection({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionId: params.siteSectionId,
          title: body.title,
          path: body.path,
          description: nullToEmpty(body.description),
          icon: nullToEmpty(body.icon),
          condition: nullToEmpty(body.condition),
          defaultSiteSpaceId: body.defaultSiteSpace,
          draft: body.draft,
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
        await sites.deleteSiteSection({ caller: principal.caller, organizationId: params.organizationId, siteId: params.siteId, sectionId: params.siteSectionId });
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
        const response = await sites.moveSiteSection({
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

    // listSiteSectionGroups
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups",
      params: siteParams,
      query: z.object(pageQueryShape),
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sites.listSiteSectionGroups({ caller: principal.caller, ...params, page: toPageRequest(query, cursors) });
        return ok(toPagedList(response.groups.map((group) => toRestSiteSectionGroup(group, urls)), response.page, cursors));
      },
    }),

    // addSectionGroupToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/section-groups",
      params: siteParams,
      body: addGroupBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.addSiteSectionGroup({
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
        const response = await sites.updateSiteSectionGroup({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          sectionGroupId: params.siteSectionGroupId,
          title: body.title,
          icon: nullToEmpty(body.icon),
          draft: body.draft,
          parentGroupId: nullToEmpty(body.parentSectionGroupId),
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
        await sites.deleteSiteSectionGroup({ caller: principal.caller, organizationId: params.organizationId, siteId: params.siteId, sectionGroupId: params.siteSectionGroupId });
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
        const response = await sites.setSectionGroup({
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
        await sites.setSectionGroup({
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
        const response = await sites.moveSiteSectionGroup({
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

    // listSiteSpaces: with shareKey (an active share link's), published URLs go through that link.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
      params: siteParams,
      query: listSiteSpacesQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sites.listSiteSpaces({
          caller: principal.caller,
          ...params,
          page: toPageRequest(query, cursors),
          default: query.default,
          shareKey: query.shareKey ?? "",
        });
        return ok(toPagedList(response.siteSpaces.map((siteSpace) => toRestSiteSpace(siteSpace, urls)), response.page, cursors));
      },
    }),

    // addSpaceToSite
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces",
      params: siteParams,
      body: addSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.addSiteSpace({ caller: principal.caller, ...params, spaceId: body.spaceId, sectionId: body.sectionId ?? "", draft: body.draft ?? false });
        const siteSpace = toRestSiteSpace(response.siteSpace, urls);
        return created(siteSpace, `${siteLocation(urls, params.organizationId, params.siteId)}/site-spaces/${encodeURIComponent(siteSpace.id)}`);
      },
    }),

    // updateSiteSpaceById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
      params: siteSpaceParams,
      body: updateSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateSiteSpace({
          caller: principal.caller,
          ...params,
          path: body.path,
          condition: body.condition === null ? "" : body.condition,
          spaceId: body.spaceId,
          draft: body.draft,
        });
        return ok(toRestSiteSpace(response.siteSpace, urls));
      },
    }),

    // deleteSiteSpaceById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId",
      params: siteSpaceParams,
      handler: async ({ params, principal }) => {
        await sites.deleteSiteSpace({ caller: principal.caller, ...params });
        return noContent();
      },
    }),

    // moveSiteSpace (deprecated in GitBook, still served)
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move",
      params: siteSpaceParams,
      body: moveSiteSpaceBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.moveSiteSpace({
          caller: principal.caller,
          ...params,
          beforeSiteSpaceId: body?.position?.before?.siteSpace ?? "",
          afterSiteSpaceId: body?.position?.after?.siteSpace ?? "",
        });
        return ok(toRestSiteSpace(response.siteSpace, urls));
      },
    }),

    // getSiteStructure: the site-spaces (`type: siteSpaces`) until sites have sections; shareKey as for listSiteSpaces.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/structure",
      params: siteParams,
      query: z.object({ shareKey: queryParam.string(128).optional() }),
      handler: async ({ params, query, principal }) => {
        const response = await sites.getSiteStructure({ caller: principal.caller, ...params, shareKey: query.shareKey ?? "" });
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
        const response = await sites.sortSiteStructure({ caller: principal.caller, ...params, item: body.item, before: body.position.before, after: body.position.after });
        if (response.siteSectionGroup) return ok(toRestSiteSectionGroup(response.siteSectionGroup, urls));
        if (response.siteExternalLink) return ok(toRestSiteExternalLink(response.siteExternalLink));
        return ok(response.siteSection ? toRestSiteSection(response.siteSection, urls) : toRestSiteSpace(response.siteSpace, urls));
      },
    }),

    // getSitePublishingAuthById: organization admins only (it holds the signing key).
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.getSitePublishingAuth({ caller: principal.caller, ...params });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),

    // updateSitePublishingAuthById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth",
      params: siteParams,
      body: updatePublishingAuthBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateSitePublishingAuth({
          caller: principal.caller,
          ...params,
          backend: body.backend,
          fallbackUrl: body.fallbackURL === null ? "" : body.fallbackURL,
          logoutUrl: body.logoutURL === null ? "" : body.logoutURL,
        });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),

    // regenerateSitePublishingAuthById: a new signing key; tokens signed with the old one stop counting.
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.regenerateSitePublishingAuth({ caller: principal.caller, ...params });
        return ok(toRestPublishingAuth(response.auth));
      },
    }),

    // getSiteAdaptiveSchema: 404 until a schema is set.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.getSiteAdaptiveSchema({ caller: principal.caller, ...params });
        return ok({ object: "site-adaptive-schema", jsonSchema: JSON.parse(response.jsonSchema) as unknown, updatedAt: (response.updatedAt ?? new Date(0)).toISOString() });
      },
    }),

    // updateSiteAdaptiveSchema
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema",
      params: siteParams,
      body: updateAdaptiveSchemaBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateSiteAdaptiveSchema({ caller: principal.caller, ...params, jsonSchema: JSON.stringify(body.jsonSchema) });
        return ok({ object: "site-adaptive-schema", jsonSchema: JSON.parse(response.jsonSchema) as unknown, updatedAt: (response.updatedAt ?? new Date(0)).toISOString() });
      },
    }),

    // listSiteAdaptiveTemplateConditions
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions",
      params: siteParams,
      handler: async ({ params, principal }) => {
        const response = await sites.listSiteAdaptiveTemplateConditions({ caller: principal.caller, ...params });
        return ok({ items: response.conditions.map(({ description, condition }) => ({ description, condition })) });
      },
    }),

    // listSiteShareLinks
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links",
      params: siteParams,
      query: listShareLinksQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const response = await sites.listShareLinks({ caller: principal.caller, ...params, page: toPageRequest(query, cursors), search: query.search ?? "" });
        return ok(toPagedList(response.shareLinks.map((link) => toRestShareLink(link, urls)), response.page, cursors));
      },
    }),

    // createSiteShareLink
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links",
      params: siteParams,
      body: createShareLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.createShareLink({ caller: principal.caller, ...params, name: body.name });
        const link = toRestShareLink(response.shareLink, urls);
        return created(link, `${siteLocation(urls, params.organizationId, params.siteId)}/share-links/${encodeURIComponent(link.id)}`);
      },
    }),

    // updateSiteShareLinkById
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
      params: shareLinkParams,
      body: updateShareLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateShareLink({ caller: principal.caller, ...params, name: body.name, active: body.active });
        return ok(toRestShareLink(response.shareLink, urls));
      },
    }),

    // deleteSiteShareLinkById: 204 whether or not it existed.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId",
      params: shareLinkParams,
      handler: async ({ params, principal }) => {
        await sites.deleteShareLink({ caller: principal.caller, ...params });
        return noContent();
      },
    }),

    // getPublishedContentSite: the site, its structure and its customizations in one answer.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/published",
      params: siteParams,
      query: z.object({ shareKey: queryParam.string(128).optional() }),
      handler: async ({ params, query, principal, ctx }) => {
        const request = { caller: principal.caller, ...params, shareKey: query.shareKey ?? "" };
        // A site of 200 site-spaces answers ~200 KB: the caller's last answer is kept and sent again
        // while publishing says its version is current.
        const key = `${principal.caller.userId}|${params.organizationId}|${params.siteId}|${request.shareKey}`;
        const keep = (response: GetPublishedContentSiteResponse) => {
          const json = Buffer.from(
            JSON.stringify({
              object: "published-content-site",
              site: toRestSite(response.site, urls),
              structure: toRestSiteStructure(response.structure, urls),
              customizations: {
                site: toRestCustomization(response.customization),
                siteSpaces: Object.fromEntries(Object.entries(response.siteSpaceCustomizations).map(([siteSpaceId, customization]) => [siteSpaceId, toRestCustomization(customization)])),
              },
              // Integrations (which add scripts to sites) do not exist yet: no site has any.
              scripts: [],
            }),
          );
          publishedViews.set(key, { version: response.version, json });
          return json;
        };
        ctx.type = "application/json";
        if (!publishedViews.get(key) && publishedViews.fetching(key)) await publishedViews.settled(key);
        const held = publishedViews.get(key);
        if (!held) return ok(await publishedViews.track(key, sites.getPublishedContentSite({ ...request, knownVersion: "" }).then(keep)));
        const response = await sites.getPublishedContentSite({ ...request, knownVersion: held.version });
        if (response.notModified) return ok(held.json);
        return ok(await publishedViews.track(key, Promise.resolve(response).then(keep)));
      },
    }),

    // getSiteCustomizationById: `unmasked` (deprecated) changes nothing: nothing is masked.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/customization",
      params: siteParams,
      query: customizationQuery,
      handler: async ({ params, principal }) => {
        const response = await sites.getSiteCustomization({ caller: principal.caller, ...params });
        return ok(toRestCustomization(response.customization));
      },
    }),

    // updateSiteCustomizationById: the whole customization, checked against GitBook's schema.
    defineRoute({
      method: "PUT",
      path: "/v1/orgs/:organizationId/sites/:siteId/customization",
      params: siteParams,
      body: customizationBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.updateSiteCustomization({ caller: principal.caller, ...params, customizationJson: JSON.stringify(body) });
        return ok(toRestCustomization(response.customization));
      },
    }),

    // getSiteSpaceCustomizationById: the site's customization with the site-space's override applied.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      query: customizationQuery,
      handler: async ({ params, principal }) => {
        const response = await sites.getSiteSpaceCustomization({ caller: principal.caller, ...params });
        return ok({ ...toRestCustomization(response.customization), hasOverrides: response.hasOverrides });
      },
    }),

    // overrideSiteSpaceCustomizationById: given settings override the site's; null resets one.
    defineRoute({
      method: "PATCH",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      body: customizationBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.overrideSiteSpaceCustomization({ caller: principal.caller, ...params, overrideJson: JSON.stringify(body) });
        return ok({ ...toRestCustomization(response.customization), hasOverrides: response.hasOverrides });
      },
    }),

    // deleteSiteSpaceCustomizationById: 205 when an override was removed, 204 when there was none.
    defineRoute({
      method: "DELETE",
      path: "/v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization",
      params: siteSpaceParams,
      handler: async ({ params, principal }) => {
        const response = await sites.deleteSiteSpaceCustomization({ caller: principal.caller, ...params });
        return response.removed ? resetContent() : noContent();
      },
    }),

    // addExternalLinkToSite: at the end of the top level or of the group named by `parent` (sites with sections).
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/external-links",
      params: siteParams,
      body: addExternalLinkBody,
      handler: async ({ params, body, principal }) => {
        const response = await sites.addSiteExternalLink({
          caller: principal.caller,
          ...params,
          title: body.title,
          url: body.url,
          description: nullToEmpty(body.description) ?? "",
          icon: nullToEmpty(body.icon) ?? "",
          condition: nullToEmpty(body.condition) ?? "",
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
        const response = await sites.updateSiteExternalLink({
          caller: principal.caller,
          organizationId: params.organizationId,
          siteId: params.siteId,
          linkId: params.siteExternalLinkId,
          title: body.title,
          url: body.url,
          description: nullToEmpty(body.description),
          icon: nullToEmpty(body.icon),
          condition: nullToEmpty(body.condition),
          sectionGroupId: nullToEmpty(body.parent),
          draft: body.draft,
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
        const response = await sites.deleteSiteExternalLink({ caller: principal.caller, organizationId: params.organizationId, siteId: params.siteId, linkId: params.siteExternalLinkId });
        return response.removed ? resetContent() : noContent();
      },
    }),
  ];
}
