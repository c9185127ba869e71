/**
 * Keys of a revision's content tree. One tree holds everything, by key prefix:
 *
 * - `p:<pageId>` → page version id (the page itself)
 * - `s:<parentId>/<slug>` → page id (path lookups: a page's slug among its siblings)
 * - `c:<parentId>/<position>/<pageId>` → page id (children of a parent, in order)
 * - `f:<fileId>` → file version id
 * - `r:<reusableContentId>` → reusable content version id
 *
 * The top level is the parent "" . Page ids, slugs and positions never contain "/", so a
 * parent's children are exactly the keys under its prefix.
 */
export const pageKey = (pageId: string) => `p:${pageId}`;
export const slugKey = (parentId: string | null, slug: string) => `s:${parentId ?? ""}/${slug}`;
export const childPrefix = (parentId: string | null) => `c:${parentId ?? ""}/`;
export const childKey = (parentId: string | null, position: string, pageId: string) => `${childPrefix(parentId)}${position}/${pageId}`;
export const fileKey = (fileId: string) => `f:${fileId}`;
export const reusableKey = (id: string) => `r:${id}`;

export const PAGE_PREFIX = "p:";
export const FILE_PREFIX = "f:";
export const REUSABLE_PREFIX = "r:";

/** The position part of a child key (between the parent prefix and the page id). */
export function positionOfChildKey(key: string, parentId: string | null): string {
  const rest = key.slice(childPrefix(parentId).length);
  return rest.slice(0, rest.lastIndexOf("/"));
}
