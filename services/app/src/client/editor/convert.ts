import type {
  DocumentBlock,
  DocumentFragment,
  DocumentInline,
  DocumentLeaf,
  DocumentMark,
  DocumentText,
  InlineContent,
  JsonDocument,
  MarkType,
} from "@imprint/document";
import type { Mark, Node, Schema } from "prosemirror-model";
import { ATOM_BLOCKS, type BlockData, blockType, dataOf, LEAF_MARKS, leafMarkTypes, nodeName, UNKNOWN_BLOCK, UNKNOWN_INLINE } from "./schema.js";

/**
 * GitBook's JSON document ↔ the editor's ProseMirror document, losslessly: for every document
 * `markdownToDocument` produces, `proseMirrorToDocument(documentToProseMirror(d))` deep-equals `d`
 * (opening and saving a page never changes what was not edited). Every block keeps its `data` and
 * `isVoid`; atoms keep their `nodes` and `fragments`; a leaf keeps the order of its marks; a table
 * keeps its column, record and fragment ids; blocks and inlines of types this editor does not know
 * are kept whole.
 */

const ATOMS = new Set<string>(ATOM_BLOCKS);
let linkKeys = 0;
/** A key for a link read or made here: adjacent links stay two. */
export const newLinkKey = (): string => `link-${++linkKeys}`;
let ids = 0;
/** An id for a table's new column, record or fragment (unique in the table: see `unique`). */
export const newId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}${(++ids).toString(36)}`;

// ── document → ProseMirror ─────────────────────────────────────────────────────────────────

export function documentToProseMirror(document: JsonDocument, schema: Schema): Node {
  const blocks = document.nodes.map((block) => blockToNode(block, schema));
  // An empty document is one empty paragraph in the editor (see proseMirrorToDocument).
  return schema.node("doc", null, blocks.length > 0 ? blocks : [schema.node("paragraph")]);
}

function blockAttrs(block: DocumentBlock): { data: BlockData; isVoid: boolean | null } {
  return { data: block.data ?? {}, isVoid: block.isVoid ?? null };
}

function blockToNode(block: DocumentBlock, schema: Schema): Node {
  const name = nodeName(block.type);
  const type = schema.nodes[name];
  if (!type || name === "fragment" || name === "doc" || name === "text" || block.object !== "block") return schema.node(UNKNOWN_BLOCK, { block });
  if (block.type === "code") return codeToNode(block, schema);
  if (block.type === "table") return tableToNode(block, schema);
  if (block.type === "expandable" && block.fragments && !block.nodes) {
    const fragments = block.fragments.map((fragment) =>
      schema.node(
        "fragment",
        { fragment: fragment.fragment, type: fragment.type ?? null },
        fragment.nodes.map((child) => blockToNode(child, schema)),
      ),
    );
    return schema.node(type, { ...blockAttrs(block), fragments: null }, fragments);
  }
  if (ATOMS.has(block.type)) return schema.node(type, { ...blockAttrs(block), nodes: block.nodes ?? null, fragments: block.fragments ?? null });
  if (block.fragments !== undefined) return schema.node(UNKNOWN_BLOCK, { block });
  if (type.isTextblock) return type.create(blockAttrs(block), inlinesToNodes((block.nodes ?? []) as InlineContent[], schema, []));
  const children = (block.nodes ?? []).map((child) => (child.object === "block" ? blockToNode(child, schema) : schema.node(UNKNOWN_BLOCK, { block: child })));
  try {
    return type.createChecked(blockAttrs(block), children);
  } catch {
    // Content this schema does not allow there (a shape GitBook's editor made and the editor has no rule for): kept whole.
    return schema.node(UNKNOWN_BLOCK, { block });
  }
}

function codeToNode(block: DocumentBlock, schema: Schema): Node {
  const lines = (block.nodes ?? []).map((line) => {
    const text = line.object === "block" ? inlineText(line.nodes ?? []) : "";
    return schema.node("code_line", { data: line.object === "block" ? line.data : {}, isVoid: null }, text === "" ? [] : [schema.text(text)]);
  });
  return schema.node("code_block", blockAttrs(block), lines.length > 0 ? lines : [schema.node("code_line")]);
}

function inlineText(nodes: readonly (DocumentBlock | InlineContent)[]): string {
  return nodes.map((node) => (node.object === "text" ? node.leaves.map((l) => l.text).join("") : "")).join("");
}

function leafMarks(leaf: DocumentLeaf, schema: Schema): Mark[] {
  const types = leaf.marks.map((m) => m.type);
  const marks = types.map((type) => schema.marks[type]!.create());
  const canonical = LEAF_MARKS.filter((type) => (types as string[]).includes(type));
  if (types.length > 1 && types.some((type, index) => type !== canonical[index])) marks.push(schema.marks.leaf_order!.create({ order: types }));
  return marks;
}

function inlinesToNodes(nodes: readonly InlineContent[], schema: Schema, outer: readonly Mark[]): Node[] {
  const out: Node[] = [];
  for (const node of nodes) {
    if (node.object === "text") {
      for (const leaf of node.leaves) if (leaf.text !== "") out.push(schema.text(leaf.text, [...outer, ...leafMarks(leaf, schema)]));
    } else if (node.type === "link") {
      const link = schema.marks.link!.create({ ref: node.data.ref, key: newLinkKey() });
      out.push(...inlinesToNodes(node.nodes, schema, [...outer, link]));
    } else if (node.type === "inline-image" || node.type === "inline-math") {
      out.push(schema.node(nodeName(node.type), { data: node.data, isVoid: node.isVoid }, undefined, outer));
    } else {
      out.push(schema.node(UNKNOWN_INLINE, { inline: node }, undefined, outer));
    }
  }
  return out;
}

function tableToNode(block: DocumentBlock, schema: Schema): Node {
  const data = block.data as {
    view?: { columns?: string[] };
    records?: Record<string, Record<string, unknown>>;
    definition?: Record<string, Record<string, unknown>>;
  };
  const columns = data.view?.columns ?? [];
  const fragments = new Map((block.fragments ?? []).map((fragment) => [fragment.fragment, fragment]));
  const cellBlocks = (nodes: readonly DocumentBlock[]) => {
    const children = nodes.map((child) => blockToNode(child, schema)).filter((child) => child.type.name === "paragraph");
    return children.length > 0 ? children : [schema.node("paragraph")];
  };
  const header = schema.node(
    "table_row",
    null,
    columns.map((column) => {
      const { title, ...definition } = data.definition?.[column] ?? {};
      const text = typeof title === "string" && title !== "" ? [schema.text(title)] : [];
      return schema.node("table_header", { column, definition }, [schema.node("paragraph", null, text)]);
    }),
  );
  const records = Object.entries(data.records ?? {});
  const rows = records.map(([id, { values, ...record }]) =>
    schema.node(
      "table_row",
      { id, record },
      columns.map((column) => {
        const value = (values as Record<string, unknown> | undefined)?.[column];
        const fragment = typeof value === "string" ? fragments.get(value) : undefined;
        if (!fragment) return schema.node("table_cell", { fragment: null, value: value ?? null }, [schema.node("paragraph")]);
        return schema.node("table_cell", { fragment: fragment.fragment, value: null }, cellBlocks(fragment.nodes));
      }),
    ),
  );
  const { view, records: _records, definition: _definition, ...rest } = data;
  return schema.node("table", { data: { ...rest, view }, isVoid: block.isVoid ?? null }, [header, ...rows]);
}

// ── ProseMirror → document ─────────────────────────────────────────────────────────────────

export function proseMirrorToDocument(doc: Node): JsonDocument {
  const nodes: DocumentBlock[] = [];
  doc.forEach((child) => nodes.push(...nodeToBlocks(child)));
  // The editor's empty document (one empty paragraph) is the empty document.
  const [only] = nodes;
  if (nodes.length === 1 && only!.type === "paragraph" && Object.keys(only!.data).length === 0 && doc.firstChild!.content.size === 0) return emptyDocument();
  return { object: "document", data: {}, nodes };
}

const emptyDocument = (): JsonDocument => ({ object: "document", data: {}, nodes: [] });

function withVoid(block: DocumentBlock, isVoid: unknown): DocumentBlock {
  if (typeof isVoid === "boolean") block.isVoid = isVoid;
  return block;
}

function nodeToBlocks(node: Node): DocumentBlock[] {
  const name = node.type.name;
  if (name === UNKNOWN_BLOCK) return [node.attrs.block as DocumentBlock];
  if (name === "code_block") return [codeToBlock(node)];
  if (name === "table") return [tableToBlock(node)];
  const type = blockType(name);
  const block: DocumentBlock = { object: "block", type, data: dataOf(node) };
  withVoid(block, node.attrs.isVoid);
  if (ATOMS.has(type)) {
    if (node.attrs.nodes !== null) block.nodes = node.attrs.nodes as DocumentBlock[];
    if (node.attrs.fragments !== null) block.fragments = node.attrs.fragments as DocumentFragment[];
    return [block];
  }
  if (name === "expandable") {
    block.fragments = [];
    node.forEach((fragment) =>
      block.fragments!.push({
        object: "fragment",
        fragment: fragment.attrs.fragment as string,
        ...(fragment.attrs.type !== null ? { type: fragment.attrs.type as string } : {}),
        nodes: childBlocks(fragment),
      }),
    );
    return [block];
  }
  if (node.isTextblock) {
    block.nodes = nodeInlines(node);
    return [block];
  }
  block.nodes = childBlocks(node);
  if (type === "list-tasks" || type.startsWith("list-")) {
    // A task's item has its check; another list's item has none (an item moved between lists).
    for (const item of block.nodes as DocumentBlock[]) {
      const { checked, ...rest } = item.data;
      if (type === "list-tasks") item.data = { ...item.data, checked: checked === true };
      else if (checked !== undefined) item.data = rest;
    }
  }
  return [block];
}

function childBlocks(node: Node): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  node.forEach((child) => blocks.push(...nodeToBlocks(child)));
  return blocks;
}

function codeToBlock(node: Node): DocumentBlock {
  const lines: DocumentBlock[] = [];
  node.forEach((line) => {
    // A line ending typed in a line (Enter in code) starts another line.
    line.textContent.split("\n").forEach((text, index) => {
      const data = index === 0 ? dataOf(line) : {};
      lines.push({ object: "block", type: "code-line", data, nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] });
    });
  });
  return withVoid({ object: "block", type: "code", data: dataOf(node), nodes: lines }, node.attrs.isVoid);
}

/** A textblock's content: runs of text as text nodes of leaves, links around their content, inline atoms. */
function nodeInlines(node: Node): InlineContent[] {
  const out: InlineContent[] = [];
  let link: { mark: Mark; inline: Extract<DocumentInline, { type: "link" }> } | undefined;
  const pushTo = (target: InlineContent[], child: Node) => {
    if (child.isText) {
      const leaf: DocumentLeaf = {
        object: "leaf",
        text: child.text!,
        marks: leafMarkTypes(child.marks).map((type): DocumentMark => ({ object: "mark", type: type as MarkType })),
      };
      const last = target[target.length - 1];
      if (last?.object === "text") last.leaves.push(leaf);
      else target.push({ object: "text", leaves: [leaf] } satisfies DocumentText);
    } else if (child.type.name === UNKNOWN_INLINE) {
      target.push(child.attrs.inline as DocumentInline);
    } else {
      target.push({ object: "inline", type: blockType(child.type.name), isVoid: true, data: dataOf(child) } as DocumentInline);
    }
  };
  node.forEach((child) => {
    const linkMark = child.marks.find((m) => m.type.name === "link");
    if (!linkMark) {
      link = undefined;
      pushTo(out, child);
      return;
    }
    if (!link || !link.mark.eq(linkMark)) {
      link = { mark: linkMark, inline: { object: "inline", type: "link", isVoid: false, data: { ref: linkMark.attrs.ref as never }, nodes: [] } };
      out.push(link.inline);
    }
    // A link holds text and images only.
    if (child.isText || child.type.name === "inline_image") pushTo(link.inline.nodes, child);
    else pushTo(out, child);
  });
  for (const inline of out) if (inline.object === "inline" && inline.type === "link") inline.nodes = mergeLeaves(inline.nodes);
  const merged = mergeLeaves(out);
  return merged.length > 0 ? merged : [{ object: "text", leaves: [{ object: "leaf", text: "", marks: [] }] }];
}

/** Adjacent leaves with the same marks are one leaf (ProseMirror splits text where a mark it keeps apart changes). */
function mergeLeaves<T extends InlineContent>(nodes: T[]): T[] {
  for (const node of nodes) {
    if (node.object !== "text") continue;
    const leaves: DocumentLeaf[] = [];
    for (const leaf of node.leaves) {
      const last = leaves[leaves.length - 1];
      if (last && last.marks.length === leaf.marks.length && last.marks.every((m, index) => m.type === leaf.marks[index]!.type)) last.text += leaf.text;
      else leaves.push(leaf);
    }
    node.leaves = leaves;
  }
  return nodes;
}

function tableToBlock(node: Node): DocumentBlock {
  const { view, ...rest } = dataOf(node) as { view?: Record<string, unknown> };
  const usedColumns = new Set<string>();
  const usedRecords = new Set<string>();
  const usedFragments = new Set<string>();
  const unique = (used: Set<string>, id: unknown, prefix: string): string => {
    const chosen = typeof id === "string" && id !== "" && !used.has(id) ? id : newId(prefix);
    used.add(chosen);
    return chosen;
  };
  const columns: string[] = [];
  const definition: Record<string, unknown> = {};
  const header = node.firstChild;
  const headerIsTitles = header !== null && header.childCount > 0 && header.firstChild!.type.name === "table_header";
  const width = Math.max(0, ...rowsOf(node).map((row) => row.childCount));
  for (let index = 0; index < width; index++) {
    const cell = headerIsTitles ? header.maybeChild(index) : null;
    const id = unique(usedColumns, cell?.attrs.column, "column");
    columns.push(id);
    const kept = (cell?.attrs.definition as Record<string, unknown> | null) ?? { type: "text", textAlignment: "left" };
    definition[id] = { id, title: cell?.textContent ?? "", ...kept };
    (definition[id] as Record<string, unknown>).id = id;
  }
  const records: Record<string, unknown> = {};
  const fragments: DocumentFragment[] = [];
  const rows = rowsOf(node).slice(headerIsTitles ? 1 : 0);
  const orderIndexes = rows.map((row) => (row.attrs.record as { orderIndex?: unknown } | null)?.orderIndex);
  const ordered = orderIndexes.every((value, index) => typeof value === "string" && (index === 0 || value > (orderIndexes[index - 1] as string)));
  rows.forEach((row, rowIndex) => {
    const values: Record<string, unknown> = {};
    columns.forEach((column, columnIndex) => {
      const cell = row.maybeChild(columnIndex);
      if (cell && cell.attrs.value !== null) {
        values[column] = cell.attrs.value;
        return;
      }
      const fragment = unique(usedFragments, cell?.attrs.fragment, "fragment");
      fragments.push({ object: "fragment", fragment, nodes: cell ? childBlocks(cell) : [{ object: "block", type: "paragraph", data: {}, nodes: [] }] });
      values[column] = fragment;
    });
    const record = (row.attrs.record as Record<string, unknown> | null) ?? {};
    records[unique(usedRecords, row.attrs.id, "row")] = { ...record, orderIndex: ordered ? record.orderIndex : String(rowIndex).padStart(6, "0"), values };
  });
  for (const fragment of fragments)
    for (const block of fragment.nodes) if (block.nodes?.length === 0) block.nodes = [{ object: "text", leaves: [{ object: "leaf", text: "", marks: [] }] }];
  const data = { ...rest, view: { type: "grid", hideHeader: false, ...view, columns }, records, definition };
  return withVoid({ object: "block", type: "table", data, fragments }, node.attrs.isVoid ?? true);
}

function rowsOf(table: Node): Node[] {
  const rows: Node[] = [];
  table.forEach((row) => rows.push(row));
  return rows;
}
