import { treeScan } from "./btree.js";
import { PAGE_PREFIX } from "./keys.js";
import type { PageIndex, PageRecord } from "./model.js";
import type { StoreSession } from "../../store/session.js";

// Kept with the records (model.ts): the caches hold it without depending on the store session.
export type { PageIndex };

const byPosition = (a: PageRecord, b: PageRecord) =>
  a.position < b.position ? -1 : a.position > b.position ? 1 : a.pageId < b.pageId ? -1 : a.pageId > b.pageId ? 1 : 0;

/** Reads the whole page set of a tree: one scan of the `p:` keys, then the versions in batches. */
export async function buildPageIndex(session: StoreSession, root: string | null): Promise<PageIndex> {
  const entries = await treeScan(session, root, { prefix: PAGE_PREFIX });
  const versions = await session.pages(entries.map(([, versionId]) => versionId));
  const byId = new Map<string, PageRecord>();
  const grouped = new Map<string, PageRecord[]>();
  for (const [, versionId] of entries) {
    const page = versions.get(versionId);
    if (!page) throw new Error(`page version ${versionId} is missing`);
    byId.set(page.pageId, page);
    const parent = page.parentId ?? "";
    const siblings = grouped.get(parent);
    if (siblings) siblings.push(page);
    else grouped.set(parent, [page]);
  }
  const children = new Map<string, string[]>();
  for (const [parent, siblings] of grouped)
    children.set(
      parent,
      siblings.sort(byPosition).map((page) => page.pageId),
    );

  const paths = new Map<string, string>();
  const walk = (parent: string, prefix: string) => {
    for (const id of children.get(parent) ?? []) {
      const path = prefix ? `${prefix}/${byId.get(id)!.slug}` : byId.get(id)!.slug;
      paths.set(id, path);
      walk(id, path);
    }
  };
  walk("", "");
  return { byId, children, paths };
}
