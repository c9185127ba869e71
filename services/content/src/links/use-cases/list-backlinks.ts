import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageOfSorted, readPageRequest, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { SpaceAccess } from "../../spaces/index.js";
import type { RevisionHeader, ContentRefInput } from "../../revisions/index.js";
import { describePages, openLinks, requirePage, type DescribedPage } from "./shared/open-links.js";
import type { LinkDeps } from "../deps.js";

export interface ListBacklinksInput {
  caller: CallerInput | undefined;
  ref: ContentRefInput | undefined;
  /** The referenced page or file. */
  target: { pageId: string } | { fileId: string };
  page: PageRequestLike | undefined;
}

export interface BacklinkList {
  access: SpaceAccess;
  revision: RevisionHeader;
  /** The referencing pages, ordered by path, with their paths. */
  pages: DescribedPage[];
  /** Markdown of their bodies, by body id. */
  markdown: Map<string, string>;
  totalCount: number;
  nextPageToken: string;
}

const FILE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The pages of a revision that reference a page (links, anchors into it) or a file (links,
 * images, covers), ordered by path. The target must exist in the revision (not_found otherwise,
 * like every read of a page or file); references to missing targets are the link list's
 * `broken` items.
 */
export async function listBacklinks(em: EntityManager, input: ListBacklinksInput, deps: LinkDeps): Promise<BacklinkList> {
  const cursor = readPageRequest(input.page, "pageId" in input.target ? "page-backlinks" : "file-backlinks", ["string", "string"]);
  const opened = await openLinks(em, deps, input);
  const { graph } = opened;

  let referencing: string[];
  if ("pageId" in input.target) {
    const page = requirePage(graph, input.target.pageId);
    referencing = graph.pageBacklinks.get(page.pageId) ?? [];
  } else {
    const { fileId } = input.target;
    if (!FILE_ID.test(fileId) || !graph.fileIds.has(fileId)) throw AppError.notFound("File");
    referencing = graph.fileBacklinks.get(fileId) ?? [];
  }

  const keyOf = (pageId: string) => [graph.index.paths.get(pageId) ?? "", pageId];
  const page = pageOfSorted(referencing, keyOf, cursor);
  const { pages, markdown } = await describePages(opened, page.items);
  return { access: opened.access, revision: opened.revision, pages, markdown, totalCount: page.totalCount, nextPageToken: page.nextPageToken };
}
