import type { RouterMiddleware } from "@koa/router";
import type { GatewayState } from "../context.js";
import type { PublicUrls } from "../mappers/urls.js";
import type { Route } from "../route.js";
import type { UpstreamClients } from "../upstreams.js";

/** What route handlers need: the shared upstream clients and the public base URLs. */
export interface RouteDeps {
  upstreams: UpstreamClients;
  urls: PublicUrls;
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
