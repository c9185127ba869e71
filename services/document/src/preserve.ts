import type * as Mdast from "mdast";
import { type DocumentBlock, type JsonDocument, markdownToDocument, mdastToDocument, parseMarkdown } from "./document.js";
import { documentToMarkdown } from "./to-markdown.js";

/**
 * A document saved over the markdown it was read from, written so that the blocks it did not
 * change keep their markdown as it was: a person who edits one paragraph changes one paragraph of
 * the stored text, not the spelling of every table, list and hint on the page.
 *
 * The previous markdown is cut into segments, each a run of top-level markdown nodes that reads on
 * its own as the blocks it reads as in the page (a paragraph alone; a `{% hint %}` from its opening
 * to its closing tag). The new document's blocks are aligned with those segments; a segment whose
 * blocks are all there, in order and unchanged, is written as it was, and every other block as
 * `documentToMarkdown` writes it. The result is kept only when it reads as exactly the document
 * `documentToMarkdown` would have stored; otherwise that markdown is stored (never a different page).
 */
export function documentToMarkdownPreserving(document: JsonDocument, previous: string): string {
  const written = documentToMarkdown(document);
  if (previous.trim() === "") return written;
  const segments = segmentsOf(previous);
  if (segments.length === 0) return written;
  const blocks = document.nodes;
  const plan = align(segments, blocks);
  if (plan.every((piece) => piece.kind === "write")) return written;
  const spliced = splice(plan, segments, blocks, previous);
  // The one guarantee: the spliced text reads as the same document as the markdown written whole.
  return sameBlocks(readBlocks(spliced), readBlocks(written)) ? spliced : written;
}

/** A run of top-level nodes of the previous markdown and the blocks it reads as. */
interface Segment {
  start: number;
  end: number;
  blocks: string[];
}

/** Parsing budget, in characters read while cutting segments, as a multiple of the markdown's length. */
const SEGMENT_BUDGET = 24;
/** A node that may close a segment opened by a GitBook tag or an HTML `<details>`. */
const MAY_CLOSE = /\{%|<\/?(?:details|summary)\b/i;

function readBlocks(markdown: string): string[] {
  return markdownToDocument(markdown).nodes.map(blockKey);
}

/** A block's identity: its JSON with keys sorted and each leaf's marks sorted (their order means nothing). */
function blockKey(block: DocumentBlock): string {
  return canonical(block);
}

function canonical(value: unknown, key = ""): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    const items = value.map((item) => canonical(item));
    return `[${(key === "marks" ? items.sort() : items).join(",")}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonical(item, name)}`).join(",")}}`;
}

function sameBlocks(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}

/**
 * Cuts the previous markdown into segments, from the first node on: the shortest run that reads as
 * the page's next blocks (with the page's link definitions, so a reference link reads alike); a node
 * no run from it can account for joins the segment before it. Nodes that read as no block (link
 * definitions) join the segment before them. Gives up (no segments) past the parsing budget.
 */
function segmentsOf(markdown: string): Segment[] {
  const root = parseMarkdown(markdown);
  const page = mdastToDocument(root, markdown).nodes.map(blockKey);
  const nodes = root.children;
  if (nodes.some((node) => node.position?.start.offset === undefined || node.position.end.offset === undefined)) return [];
  const startOf = (node: Mdast.RootContent) => node.position!.start.offset!;
  const endOf = (node: Mdast.RootContent) => node.position!.end.offset!;
  const definitions = nodes
    .filter((node) => node.type === "definition")
    .map((node) => markdown.slice(startOf(node), endOf(node)))
    .join("\n");
  let budget = SEGMENT_BUDGET * markdown.length + 4096;
  const read = (from: number, to: number): string[] | undefined => {
    const text = markdown.slice(startOf(nodes[from]!), endOf(nodes[to]!));
    budget -= text.length + definitions.length;
    if (budget < 0) return undefined;
    return readBlocks(definitions === "" ? text : `${text}\n\n${definitions}\n`);
  };
  /** The run from node `from` that reads as the page's blocks from `at` on, if any. */
  const runFrom = (from: number, at: number, after = from): { to: number; blocks: string[] } | null | undefined => {
    for (let to = after; to < nodes.length; to++) {
      if (to > after && !MAY_CLOSE.test(markdown.slice(startOf(nodes[to]!), endOf(nodes[to]!)))) continue;
      const blocks = read(from, to);
      if (!blocks) return undefined;
      if (sameBlocks(blocks, page.slice(at, at + blocks.length))) return { to, blocks };
    }
    return null;
  };
  const segments: (Segment & { first: number; at: number })[] = [];
  let node = 0;
  let at = 0;
  /** Where the next segment starts: before its first node when nodes that read as nothing lead the page. */
  let leading: number | undefined;
  while (node < nodes.length) {
    let run = runFrom(node, at);
    if (run === undefined) return [];
    if (run !== null && run.blocks.length === 0) {
      // Reads as nothing (a link definition): kept with the segment before it (or, first on the page, the one after).
      const before = segments[segments.length - 1];
      if (before) before.end = endOf(nodes[run.to]!);
      else leading ??= startOf(nodes[node]!);
      node = run.to + 1;
      continue;
    }
    if (run === null) {
      // No run from here reads as the page: the segment before it takes this node (its tag closes one opened there).
      const before = segments.pop();
      if (!before) return [];
      at = before.at;
      run = runFrom(before.first, at, node);
      if (run === undefined || run === null) return [];
      segments.push({ ...before, end: endOf(nodes[run.to]!), blocks: run.blocks });
    } else {
      segments.push({ start: leading ?? startOf(nodes[node]!), end: endOf(nodes[run.to]!), blocks: run.blocks, first: node, at });
      leading = undefined;
    }
    at += run.blocks.length;
    node = run.to + 1;
  }
  return at === page.length ? segments : [];
}

type Piece = { kind: "keep"; segment: number } | { kind: "write"; block: number };

/**
 * The new document's blocks as kept segments and blocks to write, keeping as many blocks as can
 * be (a longest common subsequence where a segment counts for its blocks), after the unchanged
 * beginning and end are matched directly (an edit rarely touches more than a few blocks).
 */
function align(segments: readonly Segment[], document: readonly DocumentBlock[]): Piece[] {
  const blocks = document.map(blockKey);
  const matches = (segment: number, block: number) => {
    const keys = segments[segment]!.blocks;
    return keys.length > 0 && block + keys.length <= blocks.length && keys.every((key, index) => key === blocks[block + index]);
  };
  const head: Piece[] = [];
  let segment = 0;
  let block = 0;
  while (segment < segments.length && matches(segment, block)) {
    head.push({ kind: "keep", segment });
    block += segments[segment]!.blocks.length;
    segment++;
  }
  const tail: Piece[] = [];
  let lastSegment = segments.length;
  let lastBlock = blocks.length;
  while (lastSegment > segment) {
    const size = segments[lastSegment - 1]!.blocks.length;
    if (lastBlock - size < block || !matches(lastSegment - 1, lastBlock - size)) break;
    lastSegment--;
    lastBlock -= size;
    tail.unshift({ kind: "keep", segment: lastSegment });
  }
  const middle = middleAlignment(segment, lastSegment, block, lastBlock, segments, matches);
  return withMovedBlocks([...head, ...middle, ...tail], segments, matches);
}

/** Blocks left to write that a segment not kept in place reads as (a block moved elsewhere on the page) keep that segment's text. */
function withMovedBlocks(pieces: Piece[], segments: readonly Segment[], matches: (segment: number, block: number) => boolean): Piece[] {
  const used = new Set(pieces.flatMap((piece) => (piece.kind === "keep" ? [piece.segment] : [])));
  const unused = segments.map((_, index) => index).filter((index) => !used.has(index) && segments[index]!.blocks.length > 0);
  if (unused.length === 0) return pieces;
  const out: Piece[] = [];
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index]!;
    const moved =
      piece.kind === "write" ? unused.findIndex((segment) => covers(pieces, index, segments[segment]!.blocks.length) && matches(segment, piece.block)) : -1;
    if (moved < 0) {
      out.push(piece);
      continue;
    }
    const [segment] = unused.splice(moved, 1);
    out.push({ kind: "keep", segment: segment! });
    index += segments[segment!]!.blocks.length - 1;
  }
  return out;
}

/** Whether the `size` pieces from `index` on are consecutive blocks to write. */
function covers(pieces: readonly Piece[], index: number, size: number): boolean {
  const first = pieces[index];
  if (first?.kind !== "write") return false;
  for (let offset = 1; offset < size; offset++) {
    const piece = pieces[index + offset];
    if (piece?.kind !== "write" || piece.block !== first.block + offset) return false;
  }
  return true;
}

/** Largest middle aligned by dynamic programming; past it, the middle is written whole. */
const MAX_ALIGNMENT_CELLS = 1_000_000;

function middleAlignment(
  firstSegment: number,
  endSegment: number,
  firstBlock: number,
  endBlock: number,
  segments: readonly Segment[],
  matches: (segment: number, block: number) => boolean,
): Piece[] {
  const rows = endSegment - firstSegment;
  const columns = endBlock - firstBlock;
  const writeAll = (): Piece[] => Array.from({ length: columns }, (_, index) => ({ kind: "write", block: firstBlock + index }));
  if (rows === 0 || columns === 0 || (rows + 1) * (columns + 1) > MAX_ALIGNMENT_CELLS) return writeAll();
  // kept[s][b]: the most blocks kept from segment s and block b on (relative indexes).
  const width = columns + 1;
  const kept = new Uint32Array((rows + 1) * width);
  for (let s = rows - 1; s >= 0; s--) {
    const size = segments[firstSegment + s]!.blocks.length;
    for (let b = columns - 1; b >= 0; b--) {
      let best = Math.max(kept[(s + 1) * width + b]!, kept[s * width + b + 1]!);
      if (b + size <= columns && matches(firstSegment + s, firstBlock + b)) best = Math.max(best, size + kept[(s + 1) * width + b + size]!);
      kept[s * width + b] = best;
    }
  }
  const pieces: Piece[] = [];
  let s = 0;
  let b = 0;
  while (b < columns) {
    if (s < rows) {
      const size = segments[firstSegment + s]!.blocks.length;
      const here = kept[s * width + b]!;
      if (b + size <= columns && matches(firstSegment + s, firstBlock + b) && here === size + kept[(s + 1) * width + b + size]!) {
        pieces.push({ kind: "keep", segment: firstSegment + s });
        s++;
        b += size;
        continue;
      }
      if (here === kept[(s + 1) * width + b]) {
        s++;
        continue;
      }
    }
    pieces.push({ kind: "write", block: firstBlock + b });
    b++;
  }
  return pieces;
}

/**
 * Kept segments as their text (with the text between two segments kept side by side in both), runs
 * of other blocks as `documentToMarkdown` writes them, one blank line between the pieces.
 */
function splice(plan: readonly Piece[], segments: readonly Segment[], blocks: readonly DocumentBlock[], previous: string): string {
  let out = "";
  let lastKept = -2;
  let index = 0;
  while (index < plan.length) {
    const piece = plan[index]!;
    if (piece.kind === "keep") {
      const segment = segments[piece.segment]!;
      if (out !== "") out += piece.segment === lastKept + 1 ? previous.slice(segments[lastKept]!.end, segment.start) : "\n\n";
      out += previous.slice(segment.start, segment.end);
      lastKept = piece.segment;
      index++;
      continue;
    }
    const run: DocumentBlock[] = [];
    for (let next = plan[index]; next?.kind === "write"; next = plan[++index]) run.push(blocks[next.block]!);
    const text = documentToMarkdown({ object: "document", data: {}, nodes: run }).replace(/\n+$/, "");
    if (text !== "") out += (out === "" ? "" : "\n\n") + text;
    lastKept = -2;
  }
  return `${out.replace(/\n+$/, "")}\n`;
}
