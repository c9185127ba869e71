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

/** What an application URL (`urls.app`) names, read back from the shapes the mappers build them in. */
export type AppUrlTarget =
  | { kind: "organization"; organizationId: string }
  | { kind: "collection"; organizationId: string; collectionId: string }
  | { kind: "site"; organizationId: string; siteId: string }
  | { kind: "space"; organizationId: string; spaceId: string; changeRequest: string; revision: string; pagePath: string };

/**
 * The target of an application URL: `/o/{org}/` (organization), `/o/{org}/c/{collection}/`,
 * `/o/{org}/sites/{site}/` (and its `preview/`), `/o/{org}/s/{space}/` followed by
 * `~/changes/{id or number}/` or `~/revisions/{revision}/` and a page's path. Null for a URL
 * outside the application or of no such shape. Query and fragment are ignored.
 */
export function parseAppUrl(raw: string, urls: PublicUrls): AppUrlTarget | null {
  let url: URL;
  let app: URL;
  try {
    url = new URL(raw);
    app = new URL(urls.app);
  } catch {
    return null;
  }
  const base = app.pathname.replace(/\/+$/, "");
  if (url.origin !== app.origin || !url.pathname.startsWith(`${base}/`)) return null;
  let segments: string[];
  try {
    segments = url.pathname
      .slice(base.length + 1)
      .split("/")
      .map(decodeURIComponent);
  } catch {
    return null;
  }
  if (segments[segments.length - 1] === "") segments.pop();
  const [o, organizationId, kind, id, ...rest] = segments;
  if (o !== "o" || !organizationId) return null;
  if (kind === undefined) return { kind: "organization", organizationId };
  if (!id) return null;
  if (kind === "c" && rest.length === 0) return { kind: "collection", organizationId, collectionId: id };
  if (kind === "sites" && (rest.length === 0 || (rest.length === 1 && rest[0] === "preview"))) return { kind: "site", organizationId, siteId: id };
  if (kind !== "s") return null;
  const space = { kind: "space" as const, organizationId, spaceId: id, changeRequest: "", revision: "" };
  if (rest[0] === "~") {
    const [, scope, reference, ...path] = rest;
    if (!reference || (scope !== "changes" && scope !== "revisions")) return null;
    return { ...space, ...(scope === "changes" ? { changeRequest: reference } : { revision: reference }), pagePath: path.join("/") };
  }
  return { ...space, pagePath: rest.join("/") };
}
