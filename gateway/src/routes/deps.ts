import type { RouterMiddleware } from "@koa/router";
import type { CacheBudget } from "@imprint/runtime/core";
import type { GatewayState } from "../context.js";
import type { PublicUrls } from "../mappers/urls.js";
import type { Route } from "../route.js";
import type { SiteScriptsCache } from "../site-scripts.js";
import type { UpstreamClients } from "../upstreams.js";

/** What route handlers need: the shared upstream clients, the public base URLs, the process's cache budget. */
export interface RouteDeps {
  upstreams: UpstreamClients;
  urls: PublicUrls;
  /** Every cache a route keeps draws on this one budget (GATEWAY_CACHE_BYTES). */
  caches: CacheBudget;
  /** The scripts each site injects, kept for the published view; integration routes' writes drop them. */
  siteScripts: SiteScriptsCache;
}

/**
 * A route mounted as it is, outside the authenticated pipeline: probes and signed downloads,
 * whose credential (if any) is in the URL.
 */
export interface DirectRoute {
  method: Route["method"];
  path: string;
  handle: RouterMiddleware<GatewayState>;
}
