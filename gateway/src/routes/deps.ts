import type { PublicUrls } from "../mappers/urls.js";
import type { UpstreamClients } from "../upstreams.js";

/** What route handlers need: the shared upstream clients and the public base URLs. */
export interface RouteDeps {
  upstreams: UpstreamClients;
  urls: PublicUrls;
}
