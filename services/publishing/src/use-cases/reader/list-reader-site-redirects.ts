import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { Site } from "../../domain/site.js";
import { SiteRedirect } from "../../domain/site-redirect.js";

/** Every live redirect of a published site, by source (the reader keeps them with the site). "Site not found" when it is not published. */
export async function listReaderSiteRedirects(em: EntityManager, input: { siteId: string }): Promise<SiteRedirect[]> {
  const site = isId(input.siteId) ? await em.findOne(Site, { id: input.siteId, published: true }) : null;
  if (!site) throw AppError.notFound("Site");
  return em.find(SiteRedirect, { siteId: site.id, draft: false }, { orderBy: { source: "asc" } });
}
