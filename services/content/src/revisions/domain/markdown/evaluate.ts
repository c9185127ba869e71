import type { DocumentBlock, InlineContent, JsonDocument } from "@imprint/document";

/**
 * Expressions a page body may contain: `{{ space.vars.NAME }}` (a revision variable) and
 * `{{ page.vars.NAME }}` (a variable of the page). Reads with `evaluated=true` replace them by
 * their values; unknown names stay as written, so a typo is visible rather than silently empty.
 */
const EXPRESSION = /\{\{\s*(space|page)\.vars\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export interface ExpressionScope {
  space: Readonly<Record<string, string>>;
  page: Readonly<Record<string, string>>;
}

export function evaluateText(text: string, scope: ExpressionScope): string {
  if (!text.includes("{{")) return text;
  return text.replace(EXPRESSION, (whole, where: "space" | "page", name: string) => {
    const value = Object.hasOwn(scope[where], name) ? scope[where][name] : undefined;
    return value ?? whole;
  });
}

function evaluateNode<T extends DocumentBlock | InlineContent>(node: T, scope: ExpressionScope): T {
  if (node.object === "text") {
    return { ...node, leaves: node.leaves.map((leaf) => ({ ...leaf, text: evaluateText(leaf.text, scope) })) };
  }
  if (node.object === "block") {
    return {
      ...node,
      ...(node.nodes ? { nodes: node.nodes.map((child) => evaluateNode(child, scope)) } : {}),
      ...(node.fragments
        ? { fragments: node.fragments.map((fragment) => ({ ...fragment, nodes: fragment.nodes.map((child) => evaluateNode(child, scope)) })) }
        : {}),
    };
  }
  if (node.type === "link") return { ...node, nodes: node.nodes.map((child) => evaluateNode(child, scope)) };
  return node;
}

/** A copy of the document with every expression in its text replaced. */
export function evaluateDocument(document: JsonDocument, scope: ExpressionScope): JsonDocument {
  return { ...document, nodes: document.nodes.map((node) => evaluateNode(node, scope)) };
}
