import { INCLUDE_PATH, parseMarkdown, type JsonDocument } from "@imprint/document";
import { visit } from "unist-util-visit";

/**
 * GitBook's reusable contents as a page includes them: `reusable-content` blocks in its document
 * (`{% include ".gitbook/includes/<id>.md" %}` in its markdown).
 */

/** How deep reusable contents including others are followed (GitBook allows none; a bound against cycles). */
export const MAX_INCLUDE_DEPTH = 3;
/** The most reusable contents one page includes, all levels together. */
export const MAX_INCLUDED = 50;

/** An include tag of a reusable content of the same space (no `space` attribute): its target. */
const INCLUDE_TAG = /^\{%\s*include\s+"([^"]*)"\s*%\}$/;

/** The reusable contents of this space a document's blocks include, in order, each once (another space's are left out). */
export function includedIds(document: JsonDocument): string[] {
  const ids = new Set<string>();
  const walk = (nodes: readonly unknown[] | undefined) => {
    for (const node of nodes ?? []) {
      if (!node || typeof node !== "object") continue;
      const block = node as {
        type?: unknown;
        data?: { ref?: { kind?: unknown; reusableContent?: unknown; space?: unknown } };
        nodes?: unknown[];
        fragments?: { nodes?: unknown[] }[];
      };
      const ref = block.type === "reusable-content" ? block.data?.ref : undefined;
      if (ref?.kind === "reusable-content" && typeof ref.reusableContent === "string" && ref.space === undefined) ids.add(ref.reusableContent);
      walk(block.nodes);
      for (const fragment of block.fragments ?? []) walk(fragment?.nodes);
    }
  };
  walk(document.nodes);
  return [...ids];
}

/**
 * The markdown with each include tag of a reusable content in `bodies` replaced by that content's
 * markdown (tags in code, or of contents not given, stay as written). Tags are found in the parsed
 * markdown (an HTML block or a paragraph holding only the tag), not by their text alone.
 */
export function expandIncludes(markdown: string, bodies: ReadonlyMap<string, string>, depth = 0): string {
  if (bodies.size === 0 || !markdown.includes("include")) return markdown;
  const edits: { start: number; end: number; text: string }[] = [];
  visit(parseMarkdown(markdown), (node) => {
    if (node.type !== "html" && node.type !== "paragraph") return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const target = INCLUDE_TAG.exec(markdown.slice(start, end).trim())?.[1];
    const id = target === undefined ? undefined : INCLUDE_PATH.exec(target)?.[1];
    const body = id === undefined ? undefined : bodies.get(id);
    if (body === undefined) return;
    const inner = depth + 1 < MAX_INCLUDE_DEPTH ? expandIncludes(body, bodies, depth + 1) : body;
    edits.push({ start, end, text: inner.trimEnd() });
    return "skip";
  });
  let text = markdown;
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text;
}
