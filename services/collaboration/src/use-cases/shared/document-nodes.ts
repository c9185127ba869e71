import { NODE_PREVIEW_MAX } from "../../domain/comment.js";

/** A node of a GitBook JSON document, as far as finding one and reading its text goes. */
interface DocumentNode {
  object?: unknown;
  key?: unknown;
  type?: unknown;
  data?: { id?: unknown };
  leaves?: { text?: unknown }[];
  nodes?: unknown[];
  fragments?: unknown[];
}

function isNode(value: unknown): value is DocumentNode {
  return typeof value === "object" && value !== null;
}

/**
 * Whether `node` is the one a comment names: its `key` (GitBook's node identifier), or for a
 * heading its anchor (`data.id`), the stable name Imprint's documents give blocks.
 */
function names(node: DocumentNode, nodeId: string): boolean {
  if (node.key === nodeId) return true;
  return typeof node.type === "string" && node.type.startsWith("heading-") && node.data?.id === nodeId;
}

/** The plain text under a node (leaves in document order). */
export function nodeText(node: DocumentNode): string {
  if (Array.isArray(node.leaves)) return node.leaves.map((leaf) => (typeof leaf.text === "string" ? leaf.text : "")).join("");
  const children = [...(Array.isArray(node.nodes) ? node.nodes : []), ...(Array.isArray(node.fragments) ? node.fragments : [])];
  const parts = children.filter(isNode).map((child) => nodeText(child));
  // Blocks are separated by a space so adjacent paragraphs do not run together.
  return node.object === "block" || node.object === "document" || node.object === "fragment" ? parts.filter(Boolean).join(" ") : parts.join("");
}

/** Depth-first search of the document for the node named `nodeId`. */
export function findDocumentNode(document: unknown, nodeId: string): DocumentNode | undefined {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!isNode(current)) continue;
    if (current !== document && names(current, nodeId)) return current;
    if (Array.isArray(current.fragments)) for (let i = current.fragments.length - 1; i >= 0; i--) stack.push(current.fragments[i]);
    if (Array.isArray(current.nodes)) for (let i = current.nodes.length - 1; i >= 0; i--) stack.push(current.nodes[i]);
  }
  return undefined;
}

/** The preview stored with a comment on a node: its text, whitespace collapsed, at most 200 characters. */
export function nodePreview(node: DocumentNode): string {
  const text = nodeText(node).replace(/\s+/g, " ").trim();
  const characters = [...text];
  return characters.length > NODE_PREVIEW_MAX ? `${characters.slice(0, NODE_PREVIEW_MAX - 1).join("")}…` : text;
}
