import { type EntityManager } from "@mikro-orm/postgresql";
import { AppError, findOwned } from "@imprint/runtime";
import { ShareLink } from "../../domain/share-link.js";
import type { Site } from "../../domain/site.js";

export interface ShareLinkView {
  shareLink: ShareLink;
  site: Site;
}

/** A share link of the site; another site's (or none) is "Share link not found". */
export async function findShareLink(em: EntityManager, site: Site, shareLinkId: string, options: { lock?: boolean } = {}): Promise<ShareLink> {
  return findOwned(em, ShareLink, { siteId: site.id }, shareLinkId, options);
}

/**
 * A share key a read names to build published URLs through: it must be an active share link's of
 * the site (a deactivated or deleted link no longer resolves); "" is none.
 */
export async function requireActiveShareKey(em: EntityManager, site: Site, shareKey: string): Promise<string> {
  if (shareKey === "") return "";
  const link = await em.findOne(ShareLink, { siteId: site.id, key: shareKey, active: true });
  if (!link) throw AppError.invalidArgument("shareKey: is not the key of an active share link of this site");
  return link.key;
}
