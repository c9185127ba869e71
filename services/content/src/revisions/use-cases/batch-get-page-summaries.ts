import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import type { PageRecord } from "../domain/tree/model.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export const MAX_PAGE_SUMMARIES = 1000;

const PAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface PageSummaries {
  revision: RevisionHeader;
  /** The pages found, in request order (each once), with their paths. */
  pages: { page: PageRecord; path: string }[];
}

/**
 * Short facts about pages of the content read, by id: each page is one lookup in the revision's
 * tree and its path one lookup per ancestor (all cached after the first read), so a list showing
 * a few pages never reads the whole tree. Pages not in the content are left out.
 */
export async function batchGetPageSummaries(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; pageIds: readonly string[] },
  deps: RevisionDeps,
): Promise<PageSummaries> {
  if (input.pageIds.length > MAX_PAGE_SUMMARIES) throw AppError.invalidArgument(`page_ids: at most ${MAX_PAGE_SUMMARIES} per call`);
  const { revision, view } = await openContent(em, deps, input);
  const pages: PageSummaries["pages"] = [];
  for (const pageId of new Set(input.pageIds)) {
    const page = PAGE_ID.test(pageId) ? await view.page(pageId) : undefined;
    if (page) pages.push({ page, path: await view.pathOf(page) });
  }
  return { revision, pages };
}
