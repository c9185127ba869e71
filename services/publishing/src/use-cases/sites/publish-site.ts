import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import { setPublished, type PublicationInput } from "../shared/publication.js";
import type { SiteView } from "../shared/sites.js";

/** Publishes a site: it becomes reachable by the audience of its visibility (see setPublished). */
export function publishSite(em: EntityManager, input: PublicationInput, deps: UseCaseDeps): Promise<SiteView> {
  return setPublished(em, { ...input, published: true }, deps);
}
