import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { evaluateDocument, evaluateText } from "../domain/markdown/evaluate.js";
import type { JsonDocument } from "@imprint/document";
import type { RevisionHeader } from "../domain/tree/caches.js";
import type { PageTree } from "../domain/tree/content-view.js";
import { holdsRevision, openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface PageReadInput {
  caller: CallerInput | undefined;
  ref: ContentRefInput | undefined;
  /** The page by id, or by path (slugs joined with "/"). */
  target: { pageId: string } | { path: string };
  format: "document" | "markdown";
  /** Replace `{{ space.vars.X }}` / `{{ page.vars.X }}` by their values. */
  evaluated: boolean;
  /** The revision whose answer to this same read the caller holds (see `holdsRevision`). */
  knownRevisionId?: string;
}

export interface PageRead {
  notModified: false;
  revision: RevisionHeader;
  organizationId: string;
  tree: PageTree;
  /** Markdown of the sub-pages' bodies, by body id (GitBook's page objects carry their body). */
  subPageMarkdown: Map<string, string>;
  /** Set for the markdown format (pages with a body). */
  markdown?: string;
  /** JSON text of the document, for the document format (pages with a body). */
  documentJson?: string;
}

/** The reference resolved to the revision the caller holds the answer of: nothing is read. */
export interface PageHeld {
  notModified: true;
  revision: RevisionHeader;
  organizationId: string;
}

const MAX_PATH = 2048;

/**
 * One page with its sub-pages and its body in the requested format. By path, each segment is one
 * lookup in the revision's slug index; a page's sub-pages come from its child index. Unknown
 * pages answer not_found, like pages of spaces the caller cannot see. A committed revision never
 * changes, so when the caller holds its answer to the same read, the page is not even looked up:
 * the same target resolves to the same page, sub-pages and body.
 */
export async function getPage(em: EntityManager, input: PageReadInput, deps: RevisionDeps): Promise<PageRead | PageHeld> {
  if ("path" in input.target && input.target.path.length > MAX_PATH) throw AppError.invalidArgument(`path: must be at most ${MAX_PATH} characters`);
  const opened = await openContent(em, deps, input);
  const { revision, view, access } = opened;
  if (holdsRevision(opened, input.knownRevisionId)) return { notModified: true, revision, organizationId: access.space.organizationId };
  const page = "pageId" in input.target ? await view.page(input.target.pageId) : await view.pageByPath(input.target.path);
  // Links are navigation entries, not addressable by path.
  if (!page || ("path" in input.target && page.type === "link")) throw AppError.notFound("Page");
  // By path, the path is known already (normalized); by id, it is walked up from the page.
  const path =
    "path" in input.target
      ? input.target.path
          .split("/")
          .filter((segment) => segment !== "")
          .join("/")
      : await view.pathOf(page);
  const tree = await view.subtree(page, path);
  const bodyIds = new Set<string>();
  const collect = (node: PageTree) => {
    if (node.page.bodyId) bodyIds.add(node.page.bodyId);
    node.children.forEach(collect);
  };
  collect(tree);
  const bodies = await view.bodies([...bodyIds]);
  const base = {
    notModified: false as const,
    revision,
    organizationId: access.space.organizationId,
    tree,
    subPageMarkdown: new Map([...bodies].map(([id, body]) => [id, body.markdown])),
  };
  if (!page.bodyId) {
    return { ...base, ...(input.format === "markdown" ? { markdown: "" } : { documentJson: JSON.stringify({ object: "document", data: {}, nodes: [] }) }) };
  }
  const body = bodies.get(page.bodyId);
  if (!body) throw new Error(`body ${page.bodyId} is missing`);
  const scope = { space: revision.variables, page: page.variables };
  if (input.format === "markdown") return { ...base, markdown: input.evaluated ? evaluateText(body.markdown, scope) : body.markdown };
  const documentJson = input.evaluated ? JSON.stringify(evaluateDocument(JSON.parse(body.document) as JsonDocument, scope)) : body.document;
  return { ...base, documentJson };
}
