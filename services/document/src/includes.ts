import { INCLUDE_PATH, parseMarkdown } from "./document.js";

/**
 * GitBook's reusable contents in a page's markdown: `{% include ".gitbook/includes/<id>.md" %}`,
 * with `space="<spaceId>"` when the reusable content is another space's. Content writes a published
 * page's markdown with them expanded; the reader does again for a visitor whose conditions hid part
 * of it: one definition of the tag, the key and the bound for both.
 */

/** How deep reusable contents including others are followed (GitBook allows none; a bound against cycles). */
export const MAX_INCLUDE_DEPTH = 3;

/** An include tag: its target, and the space it names (none: the space the tag is written in). */
const INCLUDE_TAG = /^\{%\s*include\s+"([^"]*)"(?:\s+space="([^"]*)")?\s*%\}$/;

/** What names an included reusable content among a page's: its id, after its space when it is another space's ("" for the page's own). */
export function includeKey(space: string, reusableContentId: string): string {
  return space === "" ? reusableContentId : `${space}/${reusableContentId}`;
}

type MarkdownNode = { type: string; children?: unknown[]; position?: { start: { offset?: number }; end: { offset?: number } } };

/**
 * The markdown with each include tag of a reusable content in `bodies` (by `includeKey`; `ownSpace`
 * is the including page's space, "" in the keys) replaced by that content's markdown (tags in code,
 * or of contents not given, stay as written). A tag naming no space names the space it is written
 * in: the page's, or the other space whose content holds it. Tags are found in the parsed markdown
 * (an HTML block or a paragraph holding only the tag), not by their text alone.
 */
export function expandIncludes(markdown: string, bodies: ReadonlyMap<string, string>, ownSpace = "", inSpace = "", depth = 0): string {
  if (bodies.size === 0 || !markdown.includes("include")) return markdown;
  const edits: { start: number; end: number; text: string }[] = [];
  const visit = (node: MarkdownNode) => {
    if (node.type === "html" || node.type === "paragraph") {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      const tag = start === undefined || end === undefined ? null : INCLUDE_TAG.exec(markdown.slice(start, end).trim());
      const id = tag === null ? undefined : INCLUDE_PATH.exec(tag[1]!)?.[1];
      if (id !== undefined) {
        const named = tag![2] ?? inSpace;
        const space = named === ownSpace ? "" : named;
        const body = bodies.get(includeKey(space, id));
        if (body !== undefined) {
          const inner = depth + 1 < MAX_INCLUDE_DEPTH ? expandIncludes(body, bodies, ownSpace, space, depth + 1) : body;
          edits.push({ start: start!, end: end!, text: inner.trimEnd() });
          return;
        }
      }
    }
    for (const child of node.children ?? []) visit(child as MarkdownNode);
  };
  visit(parseMarkdown(markdown));
  let text = markdown;
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text;
}
