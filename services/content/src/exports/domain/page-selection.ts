import { AppError } from "@imprint/runtime";
import type { PageRecord, PageIndex } from "../../revisions/index.js";
import type { ExportPage } from "./pdf/render-pdf.js";

/** A page of the export with the record it came from (its body and variables). */
export interface SelectedPage extends ExportPage {
  record: PageRecord;
}

/**
 * The pages an export holds, in tree order (each page, then its sub-pages): all of them, or one
 * page with its sub-pages, or (`only`) that page alone. `only` without a page changes nothing.
 */
export function selectPages(index: PageIndex, from: { pageId: string; only: boolean }): SelectedPage[] {
  const selected: SelectedPage[] = [];
  const add = (record: PageRecord, depth: number) =>
    selected.push({ pageId: record.pageId, type: record.type, title: record.title, description: record.description, href: record.href, depth, record });
  const walk = (parentId: string, depth: number) => {
    for (const id of index.children.get(parentId) ?? []) {
      const record = index.byId.get(id);
      if (!record) continue;
      add(record, depth);
      walk(id, depth + 1);
    }
  };
  if (from.pageId === "") {
    walk("", 0);
    return selected;
  }
  const root = index.byId.get(from.pageId);
  if (!root) throw AppError.notFound("Page");
  add(root, 0);
  if (!from.only) walk(root.pageId, 1);
  return selected;
}
