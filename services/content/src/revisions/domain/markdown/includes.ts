import { includeKey, type JsonDocument } from "@imprint/document";

/**
 * GitBook's reusable contents as a page includes them: `reusable-content` blocks in its document
 * (`{% include ".gitbook/includes/<id>.md" %}` in its markdown; `space="<spaceId>"` added when the
 * reusable content is another space's).
 */

// The include tag, its key and its expansion in markdown are the document model's (shared with the reader).
export { expandIncludes, includeKey, MAX_INCLUDE_DEPTH } from "@imprint/document";

/** The most reusable contents one page includes, all levels and spaces together. */
export const MAX_INCLUDED = 50;

/** A reusable content a document includes: its id, and its space when the block names one. */
export interface IncludedRef {
  reusableContentId: string;
  space?: string;
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
