import type { GetPublishedContentSiteResponse } from "@imprint/proto/publishing/v1/sites";
import { z } from "zod";
import { AnswerCache } from "../answer-cache.js";
import { toRestSiteIntegrationScript } from "../mappers/integration.js";
import { siteLocation, toRestCustomization, toRestSite, toRestSiteStructure } from "../mappers/site.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, noContent, ok, okChunks, type Route } from "../route.js";
import { toMaskedUpdate } from "../update-mask.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

// Limits, patterns and enumerations (titles, basenames, hostnames, proxies, paths, conditions,
// names, types, visibilities) are the publishing service's; the gateway checks shapes only.
export const siteParams = z.object({ organizationId: pathId(), siteId: pathId() });

/** `type` may repeat (`type=basic&type=premium`); a comma-separated value is read too. */
const typesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((entry) => entry.split(","))
      .map((type) => type.trim())
      .filter((type) => type !== ""),
  )
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

/**
 * REST body → UpdateSite fields plus an update mask naming exactly the fields the client sent; null
 * removes the proxy or the hostname. `defaultLevel` (always `inherit`) changes nothing.
 */
export function toUpdateSiteFields({ defaultLevel: _alwaysInherit, ...body }: z.output<typeof updateSiteBody>) {
  return toMaskedUpdate(
    body,
    {
      title: "",
      visibility: "",
      basename: "",
      adaptiveContentEnabled: false,
      agentsContext: "",
      defaultSiteSpaceId: "",
      defaultSiteSectionId: "",
      proxy: "",
      hostname: "",
    },
    {
      title: ["title", (title) => ({ title })],
      visibility: ["visibility", (visibility) => ({ visibility })],
      basename: ["basename", (basename) => ({ basename })],
      adaptiveContent: ["adaptive_content_enabled", (adaptiveContent) => ({ adaptiveContentEnabled: adaptiveContent.enabled })],
      agentsContext: ["agents_context", (agentsContext) => ({ agentsContext })],
      defaultSiteSpace: ["default_site_space_id", (defaultSiteSpaceId) => ({ defaultSiteSpaceId })],
      defaultSiteSection: ["default_site_section_id", (defaultSiteSectionId) => ({ defaultSiteSectionId })],
      proxy: ["proxy", (proxy) => ({ proxy: proxy ?? "" })],
      hostname: ["hostname", (hostname) => ({ hostname: hostname ?? "" })],
    },
  );
}

/**
 * A caller's last published view of a site, identified by the version publishing gave it: the
 * object without its `scripts`, which come from the integration service's list (its installations
 * change no site version), kept by SiteScriptsCache.
 */
type PublishedViewEntry = { version: string; json: Buffer };

/**
 * The published view: the kept object (`{…}`) with `scripts` added as its last member, as two
 * chunks (okChunks: the ~200 KB view is not copied for every request).
 */
function withScripts(view: Buffer, scripts: unknown[]): Buffer[] {
  return [view.subarray(0, view.length - 1), Buffer.from(`,"scripts":${JSON.stringify(scripts)}}`)];
}

export function siteRoutes({ upstreams, urls, caches, siteScripts }: RouteDeps): Route[] {
  const sites = upstreams.publishing.sites;
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
        return ok(
          toPagedList(
            response.sites.map((site) => toRestSite(site, urls)),
            response.page,
            cursors,
          ),
        );
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

    // prewarmSiteSearch: the site's published spaces' search index brought current (anyone who sees the site).
    defineRoute({
      method: "POST",
      path: "/v1/orgs/:organizationId/sites/:siteId/search/prewarm",
      params: siteParams,
      handler: async ({ params, principal }) => {
        await sites.prewarmSiteSearch({ caller: principal.caller, ...params });
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
                siteSpaces: Object.fromEntries(
                  Object.entries(response.siteSpaceCustomizations).map(([siteSpaceId, customization]) => [siteSpaceId, toRestCustomization(customization)]),
                ),
              },
            }),
          );
          publishedViews.set(key, { version: response.version, json });
          return json;
        };
        const view = async (): Promise<Buffer> => {
          if (!publishedViews.get(key) && publishedViews.fetching(key)) await publishedViews.settled(key);
          const held = publishedViews.get(key);
          if (!held) return publishedViews.track(key, sites.getPublishedContentSite({ ...request, knownVersion: "" }).then(keep));
          const response = await sites.getPublishedContentSite({ ...request, knownVersion: held.version });
          if (response.notModified) return held.json;
          return publishedViews.track(key, Promise.resolve(response).then(keep));
        };
        // The scripts the reader injects into the site's pages, from the same list it reads; asked
        // beside publishing (which decides whether the caller sees the published site at all).
        const [json, scripts] = await Promise.all([view(), siteScripts.list(params.siteId)]);
        ctx.type = "application/json";
        return okChunks(withScripts(json, scripts.map(toRestSiteIntegrationScript)));
      },
    }),
  ];
}
