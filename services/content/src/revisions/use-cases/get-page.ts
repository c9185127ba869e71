import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import { evaluateDocument, evaluateText } from "../domain/markdown/evaluate.js";
import type { JsonDocument } from "@imprint/document";
import type { RevisionHeader } from "../domain/tree/caches.js";
import type { PageTree } from "../domain/tree/content-view.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface PageReadInput {
  caller: CallerInput | undefined;
  ref: ContentRefInput | undefined;
  /** The page by id, or by path (slugs joined with "/"). */
  target: { pageId: string } | { path: string };
  format: "document" | "markdown";
  /** Replace `{{ space.vars.X }}` / `{{ page.vars.X }}` by their values. */
  evaluated: boolean;
}

export interface PageRead {
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

const MAX_PATH = 2048;

/**
 * One page with its sub-pages and its body in the requested format. By path, each segment is one
 * lookup in the revision's slug index; a page's sub-pages come from its child index. Unknown
 * pages answer not_found, like pages of spaces the caller cannot see.
 */
export async function getPage(em: EntityManager, input: PageReadInput, deps: RevisionDeps): Promise<PageRead> {
  if ("path" in input.target && input.target.path.length > MAX_PATH) throw AppError.invalidArgument(`path: must be at most ${MAX_PATH} characters`);
  const { revision, view, access } = await openContent(em, deps, input);
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
  const base = { revision, organizationId: access.space.organizationId, tree, subPageMarkdown: new Map([...bodies].map(([id, body]) => [id, body.markdown])) };
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
