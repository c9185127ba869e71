import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { setPublished, type PublicationInput } from "../shared/publication.js";
import type { SiteView } from "../shared/sites.js";

/** Unpublishes a site, keeping its configuration (see setPublished). */
export function unpublishSite(em: EntityManager, input: PublicationInput, deps: UseCaseDeps): Promise<SiteView> {
  return setPublished(em, { ...input, published: false }, deps);
}
