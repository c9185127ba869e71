import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../../access/index.js";
import type { SpaceAccess } from "../../../spaces/index.js";
import {
  type BranchRecord,
  type RevisionHeader,
  type ContentView,
  type PageRecord,
  openContentWithSpace,
  type ContentRefInput,
} from "../../../revisions/index.js";
import { linkGraph } from "../../store/link-graph.js";
import type { LinkGraph } from "../../domain/model.js";
import type { LinkDeps } from "../../deps.js";

export interface OpenedLinks {
  access: SpaceAccess;
  revision: RevisionHeader;
  view: ContentView;
  graph: LinkGraph;
  /** The change request's branch when the reference named one. */
  branch: BranchRecord | null;
}

/** A page as the answers describe it: its version, its path, and its markdown body. */
export interface DescribedPage {
  page: PageRecord;
  path: string;
}

const PAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Resolves the content reference like every content read (access first), then its link graph; the answers carry the whole space. */
export async function openLinks(
  em: EntityManager,
  deps: LinkDeps,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined },
): Promise<OpenedLinks> {
  const opened = await openContentWithSpace(em, deps, input);
  return { ...opened, graph: await linkGraph(opened.view, deps.links) };
}

/** A page of the graph's revision, or not_found. */
export function requirePage(graph: LinkGraph, pageId: string): PageRecord {
  const page = PAGE_ID.test(pageId) ? graph.index.byId.get(pageId) : undefined;
  if (!page) throw AppError.notFound("Page");
  return page;
}

/** The pages named, with their paths, and the markdown of their bodies (by body id). */
export async function describePages(
  opened: Pick<OpenedLinks, "graph" | "view">,
  pageIds: Iterable<string>,
): Promise<{ pages: DescribedPage[]; markdown: Map<string, string> }> {
  const pages: DescribedPage[] = [];
  for (const pageId of new Set(pageIds)) {
    const page = opened.graph.index.byId.get(pageId);
    if (page) pages.push({ page, path: opened.graph.index.paths.get(pageId) ?? page.slug });
  }
  const bodies = await opened.view.bodies(pages.map(({ page }) => page.bodyId).filter((id): id is string => id !== null));
  return { pages, markdown: new Map([...bodies].map(([id, body]) => [id, body.markdown])) };
}
