import type { PageTree } from "../../domain/tree/content-view.js";
import type { PageIndex } from "../../domain/tree/page-index.js";

/** The nested page tree under `parentId` ("" for the whole revision), from a page index. */
export function pageTreeFromIndex(index: PageIndex, parentId = ""): PageTree[] {
  return (index.children.get(parentId) ?? []).map((pageId) => ({
    page: index.byId.get(pageId)!,
    path: index.paths.get(pageId)!,
    children: pageTreeFromIndex(index, pageId),
  }));
}
