import { INCLUDE_PATH, parseMarkdown, type JsonDocument } from "@imprint/document";
import { visit } from "unist-util-visit";

/**
 * GitBook's reusable contents as a page includes them: `reusable-content` blocks in its document
 * (`{% include ".gitbook/includes/<id>.md" %}` in its markdown; `space="<spaceId>"` added when the
 * reusable content is another space's).
 */

/** How deep reusable contents including others are followed (GitBook allows none; a bound against cycles). */
export const MAX_INCLUDE_DEPTH = 3;
/** The most reusable contents one page includes, all levels and spaces together. */
export const MAX_INCLUDED = 50;

/** An include tag: its target, and the space it names (none: the space the tag is written in). */
const INCLUDE_TAG = /^\{%\s*include\s+"([^"]*)"(?:\s+space="([^"]*)")?\s*%\}$/;

/** A reusable content a document includes: its id, and its space when the block names one. */
export interface IncludedRef {
  reusableContentId: string;
  space?: string;
}

/** What names an included reusable content among a page's: its id, after its space when it is another space's ("" for the page's own). */
export function includeKey(space: string, reusableContentId: string): string {
  return space === "" ? reusableContentId : `${space}/${reusableContentId}`;
}

type BlockNode = {
  type?: unknown;
  data?: { ref?: { kind?: unknown; reusableContent?: unknown; space?: unknown } };
  nodes?: unknown[];
  fragments?: { nodes?: unknown[] }[];
};

/** Calls `each` with every reusable-content block's reference of the document, in order. */
function forEachReusableRef(document: JsonDocument, each: (ref: NonNullable<NonNullable<BlockNode["data"]>["ref"]>) => void): void {
  const walk = (nodes: readonly unknown[] | undefined) => {
    for (const node of nodes ?? []) {
      if (!node || typeof node !== "object") continue;
      const block = node as BlockNode;
      const ref = block.type === "reusable-content" ? block.data?.ref : undefined;
      if (ref?.kind === "reusable-content" && typeof ref.reusableContent === "string") each(ref);
      walk(block.nodes);
      for (const fragment of block.fragments ?? []) walk(fragment?.nodes);
    }
  };
  walk(document.nodes);
}

/** The reusable contents of this space a document's blocks include, in order, each once (another space's are left out). */
export function includedIds(document: JsonDocument): string[] {
  return includedRefs(document).flatMap((ref) => (ref.space === undefined ? [ref.reusableContentId] : []));
}

/** Every reusable content a document's blocks include, this space's and other spaces', in order, each once. */
export function includedRefs(document: JsonDocument): IncludedRef[] {
  const refs = new Map<string, IncludedRef>();
  forEachReusableRef(document, (ref) => {
    const reusableContentId = ref.reusableContent as string;
    const space = typeof ref.space === "string" ? ref.space : undefined;
    refs.set(includeKey(space ?? "", reusableContentId), space === undefined ? { reusableContentId } : { reusableContentId, space });
  });
  return [...refs.values()];
}

/** Another space's reusable content as a page of another space shows it: its blocks that name no space name `space` (the one they are written in). */
export function anchoredToSpace(document: JsonDocument, space: string): JsonDocument {
  forEachReusableRef(document, (ref) => {
    if (ref.space === undefined) ref.space = space;
  });
  return document;
}

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
  visit(parseMarkdown(markdown), (node) => {
    if (node.type !== "html" && node.type !== "paragraph") return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const tag = INCLUDE_TAG.exec(markdown.slice(start, end).trim());
    const id = tag === null ? undefined : INCLUDE_PATH.exec(tag[1]!)?.[1];
    if (id === undefined) return;
    const named = tag![2] ?? inSpace;
    const space = named === ownSpace ? "" : named;
    const body = bodies.get(includeKey(space, id));
    if (body === undefined) return;
    const inner = depth + 1 < MAX_INCLUDE_DEPTH ? expandIncludes(body, bodies, ownSpace, space, depth + 1) : body;
    edits.push({ start, end, text: inner.trimEnd() });
    return "skip";
  });
  let text = markdown;
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text;
}
