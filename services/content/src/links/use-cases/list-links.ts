import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, pageOfSorted, readPageRequest, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { SpaceAccess } from "../../spaces/index.js";
import type { RevisionHeader, FileRecord, ContentRefInput } from "../../revisions/index.js";
import { linkKey, type ExtractedLink } from "../domain/extract.js";
import type { LinkUsage } from "../domain/model.js";
import { appLocationOf, linkStatus, type LinkStatusName } from "../domain/link-status.js";
import { brokenInChangeRequest } from "./broken-in-change-request.js";
import { describePages, openLinks, requirePage, type DescribedPage } from "./shared/open-links.js";
import type { LinkDeps } from "../deps.js";

export interface ListLinksInput {
  caller: CallerInput | undefined;
  ref: ContentRefInput | undefined;
  /** Only this page's links; undefined: the whole revision's. */
  pageId?: string;
  /** Only targets with this status; undefined: every target. */
  status: LinkStatusName | undefined;
  page: PageRequestLike | undefined;
  /** Base URL of the web application (URLs under it are `in-app`); empty: none. */
  appUrl: string;
}

/** A link target with its status in the revision read. */
export interface ResolvedLink {
  usage: LinkUsage;
  status: LinkStatusName;
  /** The first locations by path (at most {@link LOCATIONS_PER_ITEM}); `usage.locations` has them all. */
  locations: string[];
}

/**
 * Locations described per item. Every location is a whole page (with its body) in the REST
 * answer, and a page every other page links to would otherwise put the whole space in one item;
 * a page target's backlinks list every location, paged.
 */
export const LOCATIONS_PER_ITEM = 100;

export interface LinkList {
  access: SpaceAccess;
  revision: RevisionHeader;
  items: ResolvedLink[];
  /**
   * Over every target of the scope, whatever the filter; `brokenInChangeRequest`: the broken ones
   * the change request broke (0 outside change requests, see broken-in-change-request.ts).
   */
  stats: { total: number; broken: number; brokenInChangeRequest: number };
  /** Targets matching the filter. */
  totalCount: number;
  nextPageToken: string;
  /** The pages the items name (locations, and page targets that exist). */
  pages: DescribedPage[];
  /** Markdown of those pages' bodies, by body id. */
  markdown: Map<string, string>;
  /** The file targets of the items that exist. */
  files: FileRecord[];
}

const TOKEN_LIST = "links";

/**
 * The link targets of a revision (or of one of its pages) with their status, counts over the
 * whole scope, and one page of results. The revision's link graph is cached, so after the first
 * read of a revision a list, a filter or the next page costs no database row beyond the access
 * check and the bodies of the pages it returns.
 */
export async function listLinks(em: EntityManager, input: ListLinksInput, deps: LinkDeps): Promise<LinkList> {
  const cursor = readPageRequest(input.page, TOKEN_LIST, ["string"]);
  const app = appLocationOf(input.appUrl);
  const opened = await openLinks(em, deps, input);
  const { graph } = opened;

  let scope: readonly LinkUsage[];
  if (input.pageId === undefined) {
    scope = graph.usages;
  } else {
    const page = requirePage(graph, input.pageId);
    const own = (graph.linksOf.get(page.pageId) ?? []).map((link: ExtractedLink) => ({ key: linkKey(link), link, locations: [page.pageId] }));
    scope = own.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  const resolved = scope.map((usage) => ({ usage, status: linkStatus(usage.link, graph, app), locations: usage.locations.slice(0, LOCATIONS_PER_ITEM) }));
  const matching = input.status ? resolved.filter((item) => item.status === input.status) : resolved;
  const { items, nextPageToken } = pageOfSorted(matching, (item) => [item.usage.key], cursor);

  const pageIds = items.flatMap(({ usage, status, locations }) =>
    usage.link.kind === "page" && status === "ok" ? [...locations, usage.link.target] : locations,
  );
  const { pages, markdown } = await describePages(opened, pageIds);
  const fileIds = new Set(items.filter(({ usage, status }) => usage.link.kind === "file" && status === "ok").map(({ usage }) => usage.link.target));
  const files = (await Promise.all([...fileIds].map((fileId) => opened.view.file(fileId)))).filter((file): file is FileRecord => file !== undefined);
  if (files.length !== fileIds.size) throw new AppError("internal", "a file of the revision could not be read");

  const broken = resolved.filter((item) => item.status === "broken").map((item) => item.usage);
  return {
    access: opened.access,
    revision: opened.revision,
    items,
    stats: {
      total: resolved.length,
      broken: broken.length,
      brokenInChangeRequest: opened.branch ? await brokenInChangeRequest(em, deps, opened.branch, broken) : 0,
    },
    totalCount: matching.length,
    nextPageToken,
    pages,
    markdown,
    files,
  };
}
