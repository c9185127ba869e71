/** Base URLs the mappers build `urls.*` from (no trailing slash). */
export interface PublicUrls {
  /** This API as clients reach it, e.g. https://docs-api.example.com. */
  api: string;
  /** The web application, e.g. https://docs.example.com. */
  app: string;
  /** The reader, under which published sites are read, e.g. https://read.example.com. */
  reader: string;
}

/** Where a site is served: what its published URLs are built from. */
export interface SiteBase {
  siteId: string;
  organizationId: string;
  basename: string;
  hostname: string;
  proxy: string;
}

/**
 * Where a site is read, with a trailing slash: its custom hostname, else its proxy origin, else
 * `<reader>/<organization>/<basename or id>/` on this installation.
 */
export function siteBaseUrl(address: SiteBase, urls: PublicUrls): string {
  if (address.hostname) return `https://${address.hostname}/`;
  if (address.proxy) return `https://${address.proxy}/`;
  return `${urls.reader}/${encodeURIComponent(address.organizationId)}/${encodeURIComponent(address.basename || address.siteId)}/`;
}
