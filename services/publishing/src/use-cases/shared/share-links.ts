import { LockMode, type EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { ShareLink } from "../../domain/share-link.js";
import type { Site } from "../../domain/site.js";
import { isId } from "./access.js";

export interface ShareLinkView {
  shareLink: ShareLink;
  site: Site;
}

/** A share link of the site; another site's (or none) is "Share link not found". */
export async function findShareLink(em: EntityManager, site: Site, shareLinkId: string, options: { lock?: boolean } = {}): Promise<ShareLink> {
  const found = isId(shareLinkId)
    ? await em.findOne(ShareLink, { id: shareLinkId, siteId: site.id }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {})
    : null;
  if (!found) throw AppError.notFound("Share link");
  return found;
}
