import { type DOMOutputSpec, type Mark, type MarkSpec, type Node, type NodeSpec, Schema } from "prosemirror-model";

/**
 * The editor's ProseMirror schema: one node or mark for every block, inline, fragment and mark of
 * GitBook's JSON document (`@imprint/document`). A document block `type` is the node's name with
 * `_` for `-` (`list-item` → `list_item`). Every block node keeps the block's `data` and `isVoid`
 * as attributes, so what the editor does not change is written back as it was read (convert.ts).
 *
 * Blocks edited richly: paragraphs, headings, the three lists and their items, code, quotes,
 * hints, tables (prosemirror-tables' shape over GitBook's records and columns), images, and the
 * containers whose content is blocks (tabs, steppers, expandables' fragments, conditions, columns,
 * updates). The others are atoms holding their data intact, shown as a labelled box.
 */

/** Attributes every block node carries: the block's `data` and its `isVoid` (null: not written). */
const BLOCK_ATTRS = { data: { default: {} }, isVoid: { default: null } };
/** An atom also keeps the block's `nodes` and `fragments` as they were (null: not written). */
const ATOM_ATTRS = { ...BLOCK_ATTRS, nodes: { default: null }, fragments: { default: null } };

export type BlockData = Record<string, unknown>;
export const dataOf = (node: Node): BlockData => node.attrs.data as BlockData;

/** Document block type → node name (`code` is `code_block`: the code mark is `code`). */
export const nodeName = (type: string): string => (type === "code" ? "code_block" : type.replace(/-/g, "_"));
/** Node name → document block type. */
export const blockType = (name: string): string => (name === "code_block" ? "code" : name.replace(/_/g, "-"));

/** Blocks whose content is text and inlines. */
export const TEXT_BLOCKS = ["paragraph", "heading-1", "heading-2", "heading-3"] as const;
/** Blocks whose content is blocks (every one of them holds at least one). */
export const CONTAINER_BLOCKS = ["blockquote", "hint", "tabs-item", "stepper-step", "if", "column", "update"] as const;
/** Blocks that hold only blocks of one type. */
export const LIST_BLOCKS = {
  "list-unordered": "list-item",
  "list-ordered": "list-item",
  "list-tasks": "list-item",
  tabs: "tabs-item",
  stepper: "stepper-step",
  columns: "column",
  updates: "update",
  images: "image",
} as const;
/** Blocks the editor keeps as they are: their data shown in a labelled box. */
export const ATOM_BLOCKS = [
  "divider",
  "image",
  "embed",
  "math",
  "content-ref",
  "file",
  "reusable-content",
  "swagger",
  "openapi-operation",
  "openapi-schemas",
  "openapi-webhook",
] as const;
/** The node for a block of a type this editor does not know (GitBook's others): the whole block kept. */
export const UNKNOWN_BLOCK = "unknown_block";
/** The node for an inline of a type this editor does not know. */
export const UNKNOWN_INLINE = "unknown_inline";

/**
 * What each container may hold: GitBook's rules as `@imprint/document` keeps them
 * (services/document/src/containers.ts, `ALLOWS`), by node name. Paragraphs, headings, lists and
 * dividers are allowed everywhere; a block of a type this editor does not know too (kept whole).
 * So a command never makes a document that `documentToMarkdown` (a save) refuses.
 */
const ESSENTIALS = ["paragraph", "heading_1", "heading_2", "heading_3", "list_unordered", "list_ordered", "list_tasks", "divider", UNKNOWN_BLOCK];
const CAPABILITY_NODES: Record<string, string[]> = {
  code: ["code_block"],
  images: ["images"],
  table: ["table"],
  quote: ["blockquote"],
  hint: ["hint"],
  tabs: ["tabs"],
  expandable: ["expandable"],
  embed: ["embed"],
  math: ["math"],
  contentRef: ["content_ref"],
  stepper: ["stepper"],
  file: ["file"],
  reusableContent: ["reusable_content"],
  openapi: ["swagger", "openapi_operation", "openapi_schemas", "openapi_webhook"],
  conditional: ["if"],
  columns: ["columns"],
  updates: ["updates"],
};
const ALL = Object.keys(CAPABILITY_NODES);
/** The capabilities of each container (the keys of `ALLOWS[container]` that are true). */
export const CONTAINER_ALLOWS: Record<string, readonly string[]> = {
  document: ALL,
  "list-item": ["code", "table", "quote", "hint", "math"],
  quote: ["quote"],
  hint: ["table", "embed"],
  "tabs-item": ["code", "images", "quote", "hint", "embed", "math", "contentRef", "file"],
  "stepper-step": ["code", "images", "quote", "hint", "expandable", "embed", "math", "contentRef", "file"],
  expandable: ["code", "images", "table", "quote", "hint", "file", "reusableContent"],
  column: ["code", "images", "table", "quote", "hint", "expandable", "embed", "math", "contentRef", "stepper", "file"],
  update: ["code", "images", "quote", "hint", "tabs", "expandable", "embed", "math", "contentRef", "file"],
};
/** The content expression of a container's blocks. */
const blocksOf = (container: string): string =>
  `(${[...ESSENTIALS, ...CONTAINER_ALLOWS[container]!.flatMap((capability) => CAPABILITY_NODES[capability]!)].join(" | ")})+`;

/** Every document block type the schema has a node for (besides `code`, `code-line`, `list-item`, `table`, `expandable`). */
export const BLOCK_TYPES: readonly string[] = [
  ...TEXT_BLOCKS,
  ...CONTAINER_BLOCKS,
  ...Object.keys(LIST_BLOCKS),
  ...ATOM_BLOCKS,
  "list-item",
  "code",
  "code-line",
  "table",
  "expandable",
];

const LABELS: Record<string, string> = {
  divider: "Divider",
  image: "Image",
  embed: "Embed",
  math: "Math",
  "content-ref": "Page link card",
  file: "File",
  "reusable-content": "Reusable content",
  swagger: "OpenAPI operation",
  "openapi-operation": "OpenAPI operation",
  "openapi-schemas": "OpenAPI schemas",
  "openapi-webhook": "OpenAPI webhook",
  tabs: "Tabs",
  "tabs-item": "Tab",
  stepper: "Stepper",
  "stepper-step": "Step",
  if: "Shown when",
  columns: "Columns",
  column: "Column",
  updates: "Updates",
  update: "Update",
  expandable: "Expandable",
};

/** A data field's text (a field of another type shows as nothing). */
const str = (value: unknown): string => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");

/** What a reference points at, as one line of text. */
function refText(ref: unknown): string {
  if (!ref || typeof ref !== "object") return "";
  const r = ref as Record<string, unknown>;
  const value = r.url ?? r.page ?? r.file ?? r.anchor ?? r.spec ?? r.reusableContent;
  return typeof value === "string" ? value : "";
}

/** The one-line summary an atom's box shows. */
export function atomSummary(type: string, data: BlockData): string {
  switch (type) {
    case "math":
      return str(data.formula);
    case "embed":
      return str(data.url);
    case "swagger":
    case "openapi-operation":
      return `${str(data.method).toUpperCase()} ${str(data.path)} · ${refText(data.ref)}`;
    case "openapi-schemas":
      return `${Array.isArray(data.schemas) ? data.schemas.join(", ") : ""} · ${refText(data.ref)}`;
    case "openapi-webhook":
      return `${str(data.method).toUpperCase()} ${str(data.name)} · ${refText(data.ref)}`;
    case "divider":
      return "";
    default:
      return refText(data.ref);
  }
}

/** A labelled box: the block's kind and its summary, not editable in place. */
function atomBox(type: string, data: BlockData): DOMOutputSpec {
  return [
    "div",
    { class: `imprint-editor-atom imprint-editor-atom-${type}`, "data-block": type, contenteditable: "false" },
    ["span", { class: "imprint-editor-atom-label" }, LABELS[type] ?? type],
    ["span", { class: "imprint-editor-atom-summary" }, atomSummary(type, data)],
  ];
}

/** The label a container shows above its blocks (a tab's title, a condition, an update's day). */
function containerLabel(type: string, data: BlockData): string {
  const label = LABELS[type] ?? type;
  if (type === "tabs-item") return `${label}: ${str(data.title)}`;
  if (type === "if") return `${label}: ${str(data.expression)}`;
  if (type === "update") return `${label}: ${str(data.date).slice(0, 10)}`;
  return label;
}

function containerSpec(type: string, content: string): NodeSpec {
  return {
    group: "block",
    content,
    defining: true,
    attrs: BLOCK_ATTRS,
    toDOM: (node) => [
      "div",
      { class: `imprint-editor-container imprint-editor-${type}`, "data-block": type },
      ["div", { class: "imprint-editor-container-label", contenteditable: "false" }, containerLabel(type, dataOf(node))],
      ["div", { class: "imprint-editor-container-body" }, 0],
    ],
  };
}

const nodes: Record<string, NodeSpec> = {
  doc: { content: blocksOf("document") },
  text: { group: "inline" },
  paragraph: { group: "block", content: "inline*", attrs: BLOCK_ATTRS, parseDOM: [{ tag: "p" }], toDOM: () => ["p", 0] },
};
for (const level of [1, 2, 3]) {
  nodes[`heading_${level}`] = {
    group: "block",
    content: "inline*",
    defining: true,
    attrs: BLOCK_ATTRS,
    parseDOM: [{ tag: `h${level}` }],
    toDOM: (node) => {
      const id = dataOf(node).id;
      return [`h${level}`, typeof id === "string" ? { id } : {}, 0];
    },
  };
}
nodes.list_unordered = { group: "block", content: "list_item+", attrs: BLOCK_ATTRS, parseDOM: [{ tag: "ul" }], toDOM: () => ["ul", 0] };
nodes.list_ordered = {
  group: "block",
  content: "list_item+",
  attrs: BLOCK_ATTRS,
  parseDOM: [{ tag: "ol" }],
  toDOM: (node) => {
    const start = dataOf(node).start;
    return ["ol", typeof start === "number" ? { start } : {}, 0];
  },
};
nodes.list_tasks = { group: "block", content: "list_item+", attrs: BLOCK_ATTRS, toDOM: () => ["ul", { class: "imprint-editor-tasks" }, 0] };
nodes.list_item = {
  content: blocksOf("list-item"),
  defining: true,
  attrs: BLOCK_ATTRS,
  parseDOM: [{ tag: "li" }],
  toDOM: (node) => {
    const checked = dataOf(node).checked;
    if (typeof checked !== "boolean") return ["li", 0];
    return ["li", { class: "imprint-editor-task", "data-checked": String(checked) }, 0];
  },
};
nodes.code_block = {
  group: "block",
  content: "code_line+",
  defining: true,
  attrs: BLOCK_ATTRS,
  toDOM: (node) => {
    const syntax = dataOf(node).syntax;
    return ["pre", { class: "imprint-editor-code", ...(typeof syntax === "string" ? { "data-syntax": syntax } : {}) }, ["code", 0]];
  },
};
/** A line of code (Enter types a line ending in it, which starts another `code-line` when saved). */
nodes.code_line = { content: "text*", marks: "", code: true, attrs: BLOCK_ATTRS, toDOM: () => ["div", { class: "imprint-editor-code-line" }, 0] };
nodes.blockquote = {
  group: "block",
  content: blocksOf("quote"),
  defining: true,
  attrs: BLOCK_ATTRS,
  parseDOM: [{ tag: "blockquote" }],
  toDOM: () => ["blockquote", 0],
};
nodes.hint = {
  group: "block",
  content: blocksOf("hint"),
  defining: true,
  attrs: BLOCK_ATTRS,
  toDOM: (node) => ["div", { class: `imprint-editor-hint hint hint-${str(dataOf(node).style) || "info"}`, "data-block": "hint" }, 0],
};
// A condition's blocks are top-level blocks.
for (const type of ["tabs-item", "stepper-step", "column", "update"]) nodes[nodeName(type)] = containerSpec(type, blocksOf(type));
nodes.if = containerSpec("if", blocksOf("document"));
for (const [type, item] of Object.entries(LIST_BLOCKS)) {
  if (type.startsWith("list-")) continue;
  nodes[nodeName(type)] = { ...containerSpec(type, `${nodeName(item)}+`), defining: false };
}
// Items of those lists belong to them only.
for (const item of ["tabs_item", "stepper_step", "column", "update"]) delete nodes[item]!.group;
nodes.images = { group: "block", content: "image+", attrs: BLOCK_ATTRS, toDOM: () => ["div", { class: "imprint-editor-images", "data-block": "images" }, 0] };
nodes.expandable = {
  group: "block",
  content: "fragment+",
  defining: true,
  attrs: ATOM_ATTRS,
  toDOM: () => ["details", { open: "true", class: "imprint-editor-expandable", "data-block": "expandable" }, 0],
};
/** A block's named fragment (an expandable's title and body): its blocks. */
nodes.fragment = {
  content: blocksOf("expandable"),
  attrs: { fragment: { default: "" }, type: { default: null } },
  toDOM: (node) => ["div", { class: `imprint-editor-fragment imprint-editor-${str(node.attrs.type)}` }, 0],
};
for (const type of ATOM_BLOCKS) {
  nodes[nodeName(type)] = {
    ...(type === "image" ? {} : { group: "block" }),
    atom: true,
    selectable: true,
    draggable: true,
    attrs: ATOM_ATTRS,
    toDOM: (node) => {
      const data = dataOf(node);
      if (type === "divider") return ["hr", { "data-block": "divider" }];
      const ref = data.ref as { kind?: string; url?: string } | undefined;
      if (type === "image" && ref?.kind === "url" && typeof ref.url === "string") {
        return ["img", { src: ref.url, alt: typeof data.alt === "string" ? data.alt : "", class: "imprint-editor-image", "data-block": "image" }];
      }
      return atomBox(type, data);
    },
  };
}
nodes[UNKNOWN_BLOCK] = {
  group: "block",
  atom: true,
  selectable: true,
  attrs: { block: { default: {} } },
  toDOM: (node) => {
    const block = node.attrs.block as { type?: unknown; data?: BlockData };
    return atomBox(str(block.type), block.data ?? {});
  },
};

// Tables: GitBook's table block (text columns, records of fragments) as rows of cells (prosemirror-tables' roles).
const CELL_ATTRS = { colspan: { default: 1 }, rowspan: { default: 1 }, colwidth: { default: null } };
nodes.table = {
  group: "block",
  content: "table_row+",
  tableRole: "table",
  isolating: true,
  attrs: { ...BLOCK_ATTRS },
  toDOM: () => ["table", { class: "imprint-editor-table" }, ["tbody", 0]],
};
/** A row: the record's id and its other fields (orderIndex...), or the header row (record null). */
nodes.table_row = {
  content: "(table_cell | table_header)*",
  tableRole: "row",
  attrs: { record: { default: null }, id: { default: null } },
  toDOM: () => ["tr", 0],
};
/** A header cell: its column's id and definition (the title is the cell's text). */
nodes.table_header = {
  content: "paragraph+",
  tableRole: "header_cell",
  isolating: true,
  attrs: { ...CELL_ATTRS, column: { default: null }, definition: { default: null } },
  toDOM: (node) => ["th", alignment(node.attrs.definition), 0],
};
/** A cell: the fragment holding its content, or the value of a column that is not text (kept, shown read-only). */
nodes.table_cell = {
  content: "paragraph+",
  tableRole: "cell",
  isolating: true,
  attrs: { ...CELL_ATTRS, fragment: { default: null }, value: { default: null } },
  toDOM: () => ["td", 0],
};

function alignment(definition: unknown): Record<string, string> {
  const align = (definition as { textAlignment?: unknown } | null)?.textAlignment;
  return align === "center" || align === "right" ? { style: `text-align: ${align}` } : {};
}

// Inlines.
nodes.inline_image = {
  group: "inline",
  inline: true,
  atom: true,
  attrs: BLOCK_ATTRS,
  toDOM: (node) => {
    const data = dataOf(node);
    const ref = data.ref as { kind?: string; url?: string; file?: string };
    return ref.kind === "url"
      ? ["img", { src: ref.url ?? "", alt: typeof data.alt === "string" ? data.alt : "", class: "imprint-editor-inline-image" }]
      : ["span", { class: "imprint-editor-atom-inline" }, `Image ${ref.file ?? ""}`];
  },
};
nodes.inline_math = {
  group: "inline",
  inline: true,
  atom: true,
  attrs: BLOCK_ATTRS,
  toDOM: (node) => ["span", { class: "imprint-editor-inline-math" }, str(dataOf(node).formula)],
};
nodes[UNKNOWN_INLINE] = {
  group: "inline",
  inline: true,
  atom: true,
  attrs: { inline: { default: {} } },
  toDOM: (node) => ["span", { class: "imprint-editor-atom-inline" }, str((node.attrs.inline as { type?: unknown }).type)],
};

/** The leaf marks, in the order a leaf's marks are written when the editor changed them. */
export const LEAF_MARKS = ["bold", "italic", "strikethrough", "code"] as const;

const marks: Record<string, MarkSpec> = {
  /** An inline link: its reference, and a key that keeps two adjacent links apart. */
  link: {
    attrs: { ref: {}, key: { default: "" } },
    inclusive: false,
    toDOM: (mark) => {
      const ref = mark.attrs.ref as { kind: string; url?: string; anchor?: string };
      const href = ref.kind === "url" ? ref.url : ref.kind === "anchor" ? `#${ref.anchor ?? ""}` : undefined;
      return ["a", { ...(href !== undefined ? { href } : {}), class: "imprint-editor-link", "data-ref": refText(ref) }, 0];
    },
  },
  bold: { parseDOM: [{ tag: "strong" }, { tag: "b" }], toDOM: () => ["strong", 0] },
  italic: { parseDOM: [{ tag: "em" }, { tag: "i" }], toDOM: () => ["em", 0] },
  strikethrough: { parseDOM: [{ tag: "s" }, { tag: "del" }], toDOM: () => ["s", 0] },
  code: { parseDOM: [{ tag: "code" }], toDOM: () => ["code", 0] },
  /** The order a leaf's marks were read in, where it is not LEAF_MARKS' (written back while the marks are the same). */
  leaf_order: { attrs: { order: {} }, toDOM: () => ["span", 0] },
};

export const schema = new Schema({ nodes, marks });

/** A leaf's marks as the document lists them: in the order read (leaf_order), else LEAF_MARKS' order. */
export function leafMarkTypes(markSet: readonly Mark[]): string[] {
  const types = markSet.filter((m) => (LEAF_MARKS as readonly string[]).includes(m.type.name)).map((m) => m.type.name);
  const order = markSet.find((m) => m.type.name === "leaf_order")?.attrs.order as string[] | undefined;
  if (order && order.length === types.length && order.every((type) => types.includes(type))) return [...order];
  return types;
}
