import type { Logger } from "@imprint/runtime/core";
import { Router } from "@koa/router";
import Koa from "koa";
import type { TokenAuthenticator } from "./auth.js";
import type { GatewayState } from "./context.js";
import type { PublicUrls } from "./mappers/urls.js";
import { accessLog } from "./middleware/access-log.js";
import { errorHandler } from "./middleware/error-handler.js";
import { routeFallback } from "./middleware/fallback.js";
import { requestId } from "./middleware/request-id.js";
import { mountRoutes } from "./route.js";
import { mountHealthRoutes } from "./routes/health.js";
import { contentRoutes } from "./routes/content.js";
import { mountFileRoutes } from "./routes/files.js";
import { exportRoutes, mountExportDownloadRoute } from "./routes/exports.js";
import { importRoutes } from "./routes/import.js";
import { openApiRoutes } from "./routes/openapi.js";
import { translationRoutes } from "./routes/translations.js";
import { linkRoutes } from "./routes/links.js";
import { searchRoutes } from "./routes/search.js";
import { collectionRoutes } from "./routes/collections.js";
import { memberRoutes } from "./routes/members.js";
import { organizationRoutes } from "./routes/organizations.js";
import { spaceRoutes } from "./routes/spaces.js";
import { changeRequestRoutes } from "./routes/change-requests.js";
import { commentRoutes } from "./routes/comments.js";
import type { UpstreamAddresses, UpstreamClients } from "./upstreams.js";

export interface AppDeps {
  upstreams: UpstreamClients;
  upstreamAddresses: UpstreamAddresses;
  authenticator: TokenAuthenticator;
  urls: PublicUrls;
  bodyLimitBytes: number;
  logger: Logger;
}

/** Builds the Koa application: cross-cutting middleware, then one router holding every route. */
export function createApp(deps: AppDeps): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  // Every error is answered by errorHandler; Koa's default stderr printing would only duplicate it.
  app.silent = true;

  const router = new Router<GatewayState>();
  mountHealthRoutes(router, deps.upstreamAddresses);
  // Signed file downloads carry their credential in the URL, not a bearer token.
  mountFileRoutes(router, { upstreams: deps.upstreams });
  mountExportDownloadRoute(router, { upstreams: deps.upstreams });
  const routeDeps = { upstreams: deps.upstreams, urls: deps.urls };
  mountRoutes(router, [...organizationRoutes(routeDeps), ...memberRoutes(routeDeps), ...collectionRoutes(routeDeps), ...spaceRoutes(routeDeps), ...contentRoutes(routeDeps), ...importRoutes(routeDeps), ...openApiRoutes(routeDeps), ...translationRoutes(routeDeps), ...linkRoutes(routeDeps), ...searchRoutes(routeDeps), ...changeRequestRoutes(routeDeps), ...commentRoutes(routeDeps), ...exportRoutes(routeDeps)], {
    authenticator: deps.authenticator,
    bodyLimitBytes: deps.bodyLimitBytes,
  });

  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(router.routes());
  app.use(routeFallback());
  return app;
}
