import { AppError, callerMessage } from "@imprint/runtime/core";
import { z } from "zod";
import { toRestChangeRequest } from "../mappers/change-request.js";
import { toRestCollection } from "../mappers/collection.js";
import { toRestPage } from "../mappers/page.js";
import { toRestSpace } from "../mappers/space.js";
import { parseAppUrl } from "../mappers/urls.js";
import { defineRoute, ok, type Route } from "../route.js";
import { queryParam } from "../validation.js";
import type { Principal } from "../auth.js";
import type { RouteDeps } from "./deps.js";

const urlQuery = z.object({ url: z.string().min(1).max(4096) });

/** GitBook's URL: absolute, at most 2,048 characters. */
const publishedUrl = z.url({ error: "must be an absolute URL" }).max(2048);

const publishedUrlQuery = z.object({
  url: publishedUrl,
  visitorAuthToken: z.string().max(8192).optional(),
  redirectOnError: queryParam.boolean().optional(),
});

const publishedUrlBody = z.strictObject({
  url: publishedUrl,
  redirectOnError: z.boolean().optional(),
  visitor: z
    .strictObject({
      type: z.enum(["human", "agent"]).optional(),
      jwtToken: z.string().max(8192).optional(),
      // Conditions are not evaluated for API callers (they see the site's whole live structure), so these change nothing.
      unsignedClaims: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

/** How long a resolved URL's apiToken works (GitBook's short-lived token). */
const PUBLISHED_API_TOKEN_TTL_SECONDS = 3600;

/** GitBook's answer for a URL that names no content. */
const noContent = () => new AppError("not_found", "No content found for the URL");

export function urlRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const { spaces, collections, revisions } = upstreams.content;
  const { changeRequests } = upstreams.collaboration;
  const { sites, siteSpaces } = upstreams.publishing;
  const { tokens } = upstreams.identity;

  /**
   * A published URL back to what it shows (publishing resolves it, for the caller), with a
   * short-lived token of the caller's own to read it with (so it reads nothing the caller cannot).
   */
  const resolvePublished = async (caller: Principal["caller"], url: string, visitorAuthToken: string) => {
    const resolved = await sites.resolvePublishedUrl({ caller, url, readerUrl: urls.reader, visitorAuthToken });
    const issued = await tokens.issueCallerToken({
      caller: callerMessage(caller),
      label: `Published content API token: ${resolved.canonicalUrl}`.slice(0, 255),
      ttlSeconds: PUBLISHED_API_TOKEN_TTL_SECONDS,
    });
    return ok({
      organization: resolved.organizationId,
      site: resolved.siteId,
      ...(resolved.siteSectionId ? { siteSection: resolved.siteSectionId } : {}),
      siteSpace: resolved.siteSpaceId,
      space: resolved.spaceId,
      pathname: resolved.pathname,
      basePath: resolved.basePath,
      siteBasePath: resolved.siteBasePath,
      apiToken: issued.token,
      complete: resolved.complete,
      canonicalUrl: resolved.canonicalUrl,
      ...(resolved.shareKey ? { shareKey: resolved.shareKey } : {}),
    });
  };

  return [
    // getEmbedByUrl: what a web page says of itself, read by content through its fetch guard.
    defineRoute({
      method: "GET",
      path: "/v1/urls/embed",
      query: z.object({ url: z.string().min(1).max(2048) }),
      handler: async ({ query, principal }) => {
        const embed = await upstreams.content.links.getEmbed({ caller: principal.caller, url: query.url });
        return ok({ type: "link", title: embed.title, site: embed.site, ...(embed.icon ? { icon: embed.icon } : {}) });
      },
    }),
    // getPublishedContentByUrl (deprecated by GitBook) and resolvePublishedContentByUrl: the same
    // resolution, its inputs in the query or in the body.
    defineRoute({
      method: "GET",
      path: "/v1/urls/published",
      query: publishedUrlQuery,
      handler: async ({ query, principal }) => resolvePublished(principal.caller, query.url, query.visitorAuthToken ?? ""),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/urls/published",
      body: publishedUrlBody,
      handler: async ({ body, principal }) => resolvePublished(principal.caller, body.url, body.visitor?.jwtToken ?? ""),
    }),
    // getContentByUrl: an application URL (`urls.app`) back to what it shows. The URL's shape is
    // the gateway's own (its mappers build it); each part is read from the service that owns it,
    // as the caller, so a URL of something the caller cannot see is 404 like any read of it.
    defineRoute({
      method: "GET",
      path: "/v1/urls/content",
      query: urlQuery,
      handler: async ({ query, principal }) => {
        const caller = principal.caller;
        const target = parseAppUrl(query.url, urls);
        if (!target || target.kind === "organization") throw noContent();
        if (target.kind === "collection") {
          const { collection } = await collections.getCollection({ caller, collectionId: target.collectionId });
          if (collection?.organizationId !== target.organizationId) throw noContent();
          return ok({ collection: toRestCollection(collection, urls) });
        }
        if (target.kind === "site") {
          // A site shows its default site-space's space.
          const { site } = await sites.getSite({ caller, organizationId: target.organizationId, siteId: target.siteId });
          const defaults = await siteSpaces.listSiteSpaces({
            caller,
            organizationId: target.organizationId,
            siteId: target.siteId,
            default: true,
            shareKey: "",
          });
          const shown = defaults.siteSpaces.find((siteSpace) => siteSpace.id === site?.defaultSiteSpaceId)?.space;
          if (!shown) throw noContent();
          return ok({ space: toRestSpace(shown, urls) });
        }
        const ref = { spaceId: target.spaceId, changeRequestId: target.changeRequest, revisionId: target.revision };
        const options = { metadata: false, computed: false };
        const [{ space }, changeRequest, page] = await Promise.all([
          spaces.getSpace({ caller, spaceId: target.spaceId, shareKey: "" }),
          target.changeRequest ? changeRequests.getChangeRequest({ caller, spaceId: target.spaceId, changeRequestId: target.changeRequest }) : undefined,
          target.pagePath ? revisions.getPageByPath({ caller, ref, options, path: target.pagePath, pageOptions: undefined }) : undefined,
          // A revision's URL without a page still names a revision that must exist.
          target.revision && !target.pagePath ? revisions.getRevision({ caller, ref, options }) : undefined,
        ]);
        if (space?.organizationId !== target.organizationId) throw noContent();
        const context = {
          urls,
          organizationId: space.organizationId,
          spaceId: space.id,
          ...(target.changeRequest ? { changeRequest: target.changeRequest } : {}),
          ...(target.revision ? { revision: target.revision } : {}),
        };
        return ok({
          space: toRestSpace(space, urls),
          ...(changeRequest ? { changeRequest: toRestChangeRequest(changeRequest.changeRequest, urls) } : {}),
          ...(page?.page ? { page: toRestPage(page.page, context) } : {}),
        });
      },
    }),
  ];
}
