import {
  documentToMarkdown,
  expandIncludes,
  hasConditionalBlocks,
  markdownToDocument,
  withConditionsApplied,
  type ConditionContext,
  type JsonDocument,
} from "@imprint/document";
import type { PageBody } from "./data.js";

/**
 * GitBook's conditional blocks (`if`: adaptive content at block level) as one visitor reads a page:
 * every output made from a page body (HTML, markdown for agents, llms-full.txt, MCP, search
 * excerpts) is made from what this module leaves of it, so a block hidden from a visitor reaches
 * them through none. Pages without conditional blocks are answered as stored (the check is a
 * substring test before any parse).
 */

/** Whether a page body may hold a conditional block (its JSON names the block type): only then is anything filtered. */
const mayHoldConditions = (json: string) => json.includes('"if"');

/**
 * A body's documents (the page's, then the reusable contents it includes, by `includeKey`)
 * as this visitor sees them: conditions read the visitor's claims and the page's variables
 * (`space.vars`, `page.vars`; a reusable content's conditions read the including page's).
 */
export function visitorDocuments(body: PageBody, visitor: ConditionContext): { document: JsonDocument; included: Map<string, JsonDocument> } {
  const context = bodyContext(body, visitor);
  const parse = (json: string) => {
    const parsed = JSON.parse(json) as JsonDocument;
    return mayHoldConditions(json) ? withConditionsApplied(parsed, context) : parsed;
  };
  return { document: parse(body.documentJson), included: new Map([...body.reusableContents].map(([id, json]) => [id, parse(json)])) };
}

/** What the conditions of a body read: the visitor's claims, the revision's and the page's variables. */
const bodyContext = (body: PageBody, visitor: ConditionContext): ConditionContext => ({
  ...visitor,
  space: { vars: { ...body.variables.space } },
  page: { vars: { ...body.variables.page } },
});

/** Whether what a body shows depends on the visitor (it or a reusable content it includes holds a conditional block). */
export function bodyHasConditions(body: PageBody): boolean {
  return [body.documentJson, ...body.reusableContents.values()].some(
    (json) => mayHoldConditions(json) && hasConditionalBlocks(JSON.parse(json) as JsonDocument),
  );
}

/**
 * The body's markdown as this visitor reads it: as stored when nothing in it depends on the
 * visitor; else written again from the visitor's documents, each reusable content's markdown in
 * place of its include tag (as content writes the stored one). Should a document not be
 * expressible (content stores only documents read from markdown), the stored markdown read back
 * and filtered the same way.
 */
export function visitorMarkdown(body: PageBody, context: ConditionContext, spaceId: string): string {
  if (!bodyHasConditions(body)) return body.markdown;
  const { document, included } = visitorDocuments(body, context);
  try {
    const bodies = new Map([...included].map(([key, content]) => [key, documentToMarkdown(content)]));
    return expandIncludes(documentToMarkdown(document), bodies, spaceId);
  } catch {
    try {
      return documentToMarkdown(withConditionsApplied(markdownToDocument(body.markdown), bodyContext(body, context)));
    } catch {
      // Nothing this visitor may not see is ever answered: no body rather than the stored one.
      return "";
    }
  }
}

/** The text of a document's blocks (its leaves, fragments included), whitespace collapsed. */
function plainText(document: JsonDocument): string {
  const parts: string[] = [];
  const walk = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes) {
      if (!node || typeof node !== "object") continue;
      const record = node as { leaves?: unknown; nodes?: unknown; fragments?: unknown };
      if (Array.isArray(record.leaves)) for (const leaf of record.leaves as { text?: unknown }[]) if (typeof leaf?.text === "string") parts.push(leaf.text);
      walk(record.nodes);
      walk(record.fragments);
    }
  };
  walk(document.nodes);
  return normalized(parts.join(" "));
}

const normalized = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * What a search hit on this page may show this visitor. Content's index holds every block of the
 * page, hidden ones included: when the page holds conditional blocks, the hit's excerpt is kept only
 * if its text is among what the visitor sees (else the page's description, and no section anchor),
 * and the hit itself only if every word of the query is in the page's title, description or
 * visible text. Null when the page does not depend on the visitor (the hit as found).
 */
export function searchVisibility(
  body: PageBody,
  context: ConditionContext,
): { excerptVisible(excerpt: string): boolean; matches(query: string, title: string, description: string): boolean } | null {
  if (!bodyHasConditions(body)) return null;
  const { document, included } = visitorDocuments(body, context);
  const visible = [plainText(document), ...[...included.values()].map(plainText)].join(" ");
  return {
    excerptVisible: (excerpt) =>
      excerpt
        .split("…")
        .map(normalized)
        .filter((piece) => piece !== "")
        .every((piece) => visible.includes(piece)),
    matches: (query, title, description) => {
      const seen = `${normalized(title)} ${normalized(description)} ${visible}`;
      return normalized(query)
        .split(" ")
        .filter((word) => word !== "")
        .every((word) => seen.includes(word));
    },
  };
}
