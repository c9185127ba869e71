import type * as Mdast from "mdast";
import { parseMarkdown } from "@imprint/document";

/**
 * Rewrites the destinations of a markdown's links, images and link definitions, keeping every
 * other character of the source as it was (edits are spliced at the nodes' offsets).
 */

/** The new destination; `undefined` keeps it; `null` (links only) turns the link into its text. */
export type LinkRewrite = (url: string) => Promise<string | null | undefined>;

interface Edit {
  node: Mdast.Nodes;
  url: string | null;
}

function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, (c) => encodeURIComponent(c))}>` : url;
}

function titlePart(title: string | null | undefined): string {
  return title ? ` "${title.replace(/(["\\])/g, "\\$1")}"` : "";
}

export async function rewriteLinks(markdown: string, rewrite: LinkRewrite): Promise<string> {
  const root = parseMarkdown(markdown);
  const edits = new Map<Mdast.Nodes, Edit>();
  const visit = async (node: Mdast.Nodes): Promise<void> => {
    if (node.type === "link" || node.type === "image" || node.type === "definition") {
      const next = await rewrite(node.url);
      // An autolink (`<https://…>`) or a bare URL has no destination to rewrite.
      const isAutolink = node.type === "link" && node.position && markdown[node.position.start.offset ?? 0] !== "[";
      if (next !== undefined && next !== node.url && !isAutolink && (next !== null || node.type === "link")) edits.set(node, { node, url: next });
    }
    if ("children" in node) for (const child of node.children) await visit(child);
  };
  await visit(root);
  if (edits.size === 0) return markdown;

  const range = (start: number, end: number, children: readonly Mdast.Nodes[]): string => {
    let out = "";
    let cursor = start;
    for (const child of children) {
      const from = child.position?.start.offset;
      const to = child.position?.end.offset;
      if (from === undefined || to === undefined || from < cursor) continue;
      out += markdown.slice(cursor, from) + render(child);
      cursor = to;
    }
    return out + markdown.slice(cursor, end);
  };
  const render = (node: Mdast.Nodes): string => {
    const start = node.position!.start.offset!;
    const end = node.position!.end.offset!;
    const edit = edits.get(node);
    if (edit && node.type === "link") {
      const first = node.children[0]?.position?.start.offset;
      const last = node.children[node.children.length - 1]?.position?.end.offset;
      const text = first !== undefined && last !== undefined ? range(first, last, node.children) : "";
      return edit.url === null ? text : `[${text}](${destination(edit.url)}${titlePart(node.title)})`;
    }
    if (edit && node.type === "image") return `![${node.alt ?? ""}](${destination(edit.url!)}${titlePart(node.title)})`;
    if (edit && node.type === "definition") return `[${node.label ?? node.identifier}]: ${destination(edit.url!)}${titlePart(node.title)}`;
    return "children" in node ? range(start, end, node.children) : markdown.slice(start, end);
  };
  return range(0, markdown.length, root.children);
}
