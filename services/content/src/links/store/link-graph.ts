import { treeScan, type ContentView, FILE_PREFIX, type PageIndex } from "../../revisions/index.js";
import type { LinkCaches } from "../domain/caches.js";
import { linkKey, type ExtractedLink } from "../domain/extract.js";
import type { LinkGraph, LinkUsage } from "../domain/model.js";
import { loadPageLinks } from "./page-links-store.js";

/** Page ids ordered by path, then id: the order of every list of pages here. */
export function byPath(index: PageIndex): (a: string, b: string) => number {
  return (a, b) => {
    const pathA = index.paths.get(a) ?? "";
    const pathB = index.paths.get(b) ?? "";
    if (pathA !== pathB) return pathA < pathB ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
}

async function buildLinkGraph(view: ContentView, caches: LinkCaches): Promise<LinkGraph> {
  const index = await view.index();
  const pages = [...index.byId.values()];
  const [{ links, counts }, fileEntries] = await Promise.all([
    loadPageLinks(view.session, caches, pages),
    treeScan(view.session, view.root, { prefix: FILE_PREFIX }),
  ]);
  const order = byPath(index);
  const pageIds = pages.map((page) => page.pageId).sort(order);

  const linksOf = new Map<string, ExtractedLink[]>();
  const usages = new Map<string, LinkUsage>();
  const pageBacklinks = new Map<string, string[]>();
  const fileBacklinks = new Map<string, string[]>();
  const addTo = (map: Map<string, string[]>, key: string, pageId: string) => {
    const list = map.get(key);
    if (!list) map.set(key, [pageId]);
    else if (list[list.length - 1] !== pageId) list.push(pageId);
  };
  // Walking pages in path order keeps every location list in path order without sorting it.
  for (const pageId of pageIds) {
    const pageLinks = links.get(index.byId.get(pageId)!.id) ?? [];
    linksOf.set(pageId, pageLinks);
    for (const link of pageLinks) {
      const key = linkKey(link);
      const usage = usages.get(key);
      if (usage) usage.locations.push(pageId);
      else usages.set(key, { key, link, locations: [pageId] });
      if (link.kind === "page") addTo(pageBacklinks, link.target, pageId);
      if (link.kind === "file") addTo(fileBacklinks, link.target, pageId);
    }
  }
  return {
    index,
    usages: [...usages.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    linksOf,
    pageBacklinks,
    fileBacklinks,
    fileIds: new Set(fileEntries.map(([key]) => key.slice(FILE_PREFIX.length))),
    counts,
  };
}

/** The revision's link graph, built once per tree and shared by concurrent readers. */
export function linkGraph(view: ContentView, caches: LinkCaches): Promise<LinkGraph> {
  return caches.graphs.load(`${view.session.storeId}:${view.root ?? ""}`, () => buildLinkGraph(view, caches));
}
