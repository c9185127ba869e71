import { CacheBudget } from "@imprint/runtime/core";
import { DEFAULT_GATEWAY_CACHE_BYTES } from "../config.js";
import { GatewayReadiness } from "../readiness.js";
import { SiteScriptsCache } from "../site-scripts.js";
import type { Route } from "../route.js";
import type { TokenAuthenticator } from "../auth.js";
import { authRoutes, signInRoutes } from "./auth.js";
import type { UpstreamAddresses, UpstreamClients } from "../upstreams.js";
import { auditRoutes } from "./audit.js";
import { changeRequestChangesRoutes } from "./change-request-changes.js";
import { changeRequestReviewRoutes } from "./change-request-reviews.js";
import { changeRequestRoutes } from "./change-requests.js";
import { collectionRoutes } from "./collections.js";
import { commentRoutes } from "./comments.js";
import { contentRoutes } from "./content.js";
import { revisionRoutes } from "./revisions.js";
import type { DirectRoute, RouteDeps } from "./deps.js";
import { exportDownloadRoute, exportRoutes } from "./exports.js";
import { fileDownloadRoute } from "./files.js";
import { gitRoutes, gitWebhookRoute } from "./git.js";
import { healthRoutes } from "./health.js";
import { importRoutes } from "./import.js";
import { importRunRoutes } from "./import-runs.js";
import { integrationInstallationDirectRoutes, integrationInstallationRoutes } from "./integration-installations.js";
import { integrationAssetRoute, integrationRoutes } from "./integrations.js";
import { linkRoutes } from "./links.js";
import { inviteRoutes } from "./invites.js";
import { memberRoutes } from "./members.js";
import { teamRoutes } from "./teams.js";
import { oidcProviderRoutes, oidcSignInRoutes } from "./oidc.js";
import { samlRoutes, ssoRoutes } from "./saml.js";
import { teamPermissionRoutes } from "./team-permissions.js";
import { userPermissionRoutes } from "./user-permissions.js";
import { openApiRoutes } from "./openapi.js";
import { organizationChangeRequestRoutes } from "./organization-change-requests.js";
import { organizationIntegrationRoutes } from "./organization-integrations.js";
import { organizationRoutes } from "./organizations.js";
import { searchRoutes } from "./search.js";
import { urlRoutes } from "./urls.js";
import { siteAdaptiveSchemaRoutes } from "./site-adaptive-schema.js";
import { siteCustomizationRoutes } from "./site-customization.js";
import { siteExternalLinkRoutes } from "./site-external-links.js";
import { sitePublishingAuthRoutes } from "./site-publishing-auth.js";
import { siteSectionGroupRoutes } from "./site-section-groups.js";
import { siteSectionRoutes } from "./site-sections.js";
import { siteShareLinkRoutes } from "./site-share-links.js";
import { siteRedirectRoutes } from "./site-redirects.js";
import { siteInsightsRoutes } from "./site-insights.js";
import { sitePermissionRoutes } from "./site-permissions.js";
import { siteSpaceRoutes } from "./site-spaces.js";
import { siteStructureRoutes } from "./site-structure.js";
import { siteRoutes } from "./sites.js";
import { spaceRoutes } from "./spaces.js";
import { systemRoutes } from "./system.js";
import { translationRoutes } from "./translations.js";
import { userRoutes } from "./users.js";

export interface GatewayRouteDeps extends Omit<RouteDeps, "caches" | "siteScripts"> {
  upstreamAddresses: UpstreamAddresses;
  /** What /readyz consults; a process never drained when absent (tools that only list routes). */
  readiness?: GatewayReadiness;
  /** The process's cache budget; a budget of the default size when absent (tools that only list routes). */
  caches?: CacheBudget;
  /** The sites' scripts kept for the published view; asked at every request when absent. */
  siteScripts?: SiteScriptsCache;
  /** The process's token cache, which signing out updates at once; absent for tools that only list routes. */
  authenticator?: TokenAuthenticator;
}

/** Every route the gateway serves: the one list createApp mounts and tools read. */
export interface GatewayRoutes {
  /** Probes, signed downloads, SSO and integrations' public endpoints, mounted as they are (no bearer token). */
  direct: DirectRoute[];
  /** REST operations, each run through the authenticated pipeline. */
  api: Route[];
}

export function gatewayRoutes(gatewayDeps: GatewayRouteDeps): GatewayRoutes {
  const deps: GatewayRouteDeps & RouteDeps = {
    ...gatewayDeps,
    caches: gatewayDeps.caches ?? new CacheBudget(DEFAULT_GATEWAY_CACHE_BYTES),
    siteScripts: gatewayDeps.siteScripts ?? new SiteScriptsCache(gatewayDeps.upstreams.integration.scripts),
  };
  return {
    direct: [
      ...healthRoutes(deps.upstreamAddresses, deps.readiness ?? new GatewayReadiness()),
      fileDownloadRoute(deps),
      exportDownloadRoute(deps),
      ...ssoRoutes(deps),
      ...signInRoutes(deps),
      ...oidcSignInRoutes(deps),
      integrationAssetRoute(deps),
      ...integrationInstallationDirectRoutes(deps),
      gitWebhookRoute(deps),
    ],
    api: [
      ...systemRoutes(),
      ...organizationRoutes(deps),
      ...memberRoutes(deps),
      ...auditRoutes(deps),
      ...inviteRoutes(deps),
      ...teamRoutes(deps),
      ...samlRoutes(deps),
      ...oidcProviderRoutes(deps),
      ...teamPermissionRoutes(deps),
      ...userPermissionRoutes(deps),
      ...userRoutes(deps),
      ...authRoutes(deps),
      ...collectionRoutes(deps),
      ...spaceRoutes(deps),
      ...contentRoutes(deps),
      ...revisionRoutes(deps),
      ...importRoutes(deps),
      ...importRunRoutes(deps),
      ...gitRoutes(deps),
      ...openApiRoutes(deps),
      ...translationRoutes(deps),
      ...linkRoutes(deps),
      ...searchRoutes(deps),
      ...urlRoutes(deps),
      ...changeRequestRoutes(deps),
      ...changeRequestReviewRoutes(deps),
      ...changeRequestChangesRoutes(deps),
      ...organizationChangeRequestRoutes(deps),
      ...commentRoutes(deps),
      ...exportRoutes(deps),
      ...siteRoutes(deps),
      ...siteSectionRoutes(deps),
      ...siteSectionGroupRoutes(deps),
      ...siteSpaceRoutes(deps),
      ...siteStructureRoutes(deps),
      ...sitePublishingAuthRoutes(deps),
      ...siteAdaptiveSchemaRoutes(deps),
      ...siteShareLinkRoutes(deps),
      ...siteRedirectRoutes(deps),
      ...siteInsightsRoutes(deps),
      ...sitePermissionRoutes(deps),
      ...siteCustomizationRoutes(deps),
      ...siteExternalLinkRoutes(deps),
      // A write to an integration or an installation may change the scripts any site injects.
      ...droppingSiteScripts(deps.siteScripts, [...integrationRoutes(deps), ...integrationInstallationRoutes(deps), ...organizationIntegrationRoutes(deps)]),
    ],
  };
}

export interface RouteTableEntry {
  method: Route["method"];
  /** Koa router syntax: `:name` is one segment, `*name` the rest of the path. */
  path: string;
  /** Whether the route runs the bearer-token pipeline. */
  authenticated: boolean;
}

/**
 * Stands in for every upstream client and address: route factories only keep references to their
 * clients, and a listed route is never run.
 */
const detached: unknown = new Proxy(() => undefined, {
  get: () => detached,
  apply: () => {
    throw new Error("routeTable() builds routes to list them, not to run them");
  },
});

/** Method and path of every route, in mount order, without upstreams (for the API coverage doc and tests). */
export function routeTable(): RouteTableEntry[] {
  const routes = gatewayRoutes({
    upstreams: detached as UpstreamClients,
    upstreamAddresses: detached as UpstreamAddresses,
    urls: { api: "http://imprint.invalid", app: "http://imprint.invalid", reader: "http://imprint.invalid/sites" },
  });
  return [
    ...routes.direct.map(({ method, path }) => ({ method, path, authenticated: false })),
    ...routes.api.map(({ method, path }) => ({ method, path, authenticated: true })),
  ];
}

/** `routes` with every write (whatever its outcome: a timed-out one may have applied) dropping the kept site scripts after it. */
function droppingSiteScripts(siteScripts: SiteScriptsCache, routes: Route[]): Route[] {
  return routes.map((route) =>
    route.method === "GET"
      ? route
      : {
          ...route,
          async run(ctx, pipeline) {
            try {
              await route.run(ctx, pipeline);
            } finally {
              siteScripts.changed();
            }
          },
        },
  );
}
