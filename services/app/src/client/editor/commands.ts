import { baseKeymap, chainCommands, lift, setBlockType, toggleMark, wrapIn } from "prosemirror-commands";
import { history, redo, undo } from "prosemirror-history";
import { InputRule, inputRules, textblockTypeInputRule, wrappingInputRule } from "prosemirror-inputrules";
import { keymap } from "prosemirror-keymap";
import { findWrapping } from "prosemirror-transform";
import type { Attrs, MarkType, Node, NodeType, Schema } from "prosemirror-model";
import { liftListItem, sinkListItem, splitListItem, wrapInList } from "prosemirror-schema-list";
import { type Command, type EditorState, NodeSelection, Plugin, TextSelection } from "prosemirror-state";
import { addColumnAfter, addRowAfter, deleteColumn, deleteRow, goToNextCell, isInTable, tableEditing } from "prosemirror-tables";
import { newId, newLinkKey } from "./convert.js";
import { dataOf } from "./schema.js";

/**
 * The editor's commands (toolbar buttons and shortcuts), its keymap and its markdown input rules.
 * Each command is a ProseMirror command: it answers whether it applies when called without
 * dispatch, so the toolbar can show what is possible.
 */

export type HintStyle = "info" | "success" | "warning" | "danger";
export const HINT_STYLES: readonly HintStyle[] = ["info", "success", "warning", "danger"];
export type LeafMark = "bold" | "italic" | "code" | "strikethrough";

export const toggleLeafMark = (schema: Schema, mark: LeafMark): Command => toggleMark(schema.marks[mark]!);

/** A heading of level 1 to 3, or back to a paragraph when the block already is one. */
export function toggleHeading(schema: Schema, level: 1 | 2 | 3): Command {
  const heading = schema.nodes[`heading_${level}`]!;
  return (state, dispatch) => (blockIs(state, heading) ? setBlockType(schema.nodes.paragraph!)(state, dispatch) : setBlockType(heading)(state, dispatch));
}

/** Wraps the selected blocks in a list of the type (`list_unordered`, `list_ordered`, `list_tasks`), or lifts them out of one. */
export function toggleList(schema: Schema, listType: "list_unordered" | "list_ordered" | "list_tasks"): Command {
  const list = schema.nodes[listType]!;
  const item = schema.nodes.list_item!;
  return (state, dispatch) => {
    const parentList = ancestor(state, isList);
    if (parentList?.type === list) return liftListItem(item)(state, dispatch);
    if (parentList) {
      // Another kind of list: the list changes kind, its items keep their content (a task's check is set when saved).
      if (dispatch) {
        const $from = state.selection.$from;
        for (let depth = $from.depth; depth > 0; depth--) {
          if ($from.node(depth) === parentList) dispatch(state.tr.setNodeMarkup($from.before(depth), list, parentList.attrs));
        }
      }
      return true;
    }
    return wrapInList(list)(state, dispatch);
  };
}

/** Checks or unchecks the task of the selection's list item (in a task list). */
export const toggleTask: Command = (state, dispatch) => {
  const $from = state.selection.$from;
  for (let depth = $from.depth; depth > 1; depth--) {
    const node = $from.node(depth);
    if (node.type.name === "list_item" && $from.node(depth - 1).type.name === "list_tasks") {
      if (dispatch)
        dispatch(state.tr.setNodeMarkup($from.before(depth), null, { ...node.attrs, data: { ...dataOf(node), checked: dataOf(node).checked !== true } }));
      return true;
    }
  }
  return false;
};

const LISTS = new Set(["list_unordered", "list_ordered", "list_tasks"]);
/** Whether the node is a list (of any kind). */
export const isList = (node: Node): boolean => LISTS.has(node.type.name);

export const toggleQuote = (schema: Schema): Command => wrapOrLift(schema.nodes.blockquote!);

/** Wraps the selected blocks in a hint of the style; in a hint already, sets its style. */
export function setHint(schema: Schema, style: HintStyle): Command {
  const hint = schema.nodes.hint!;
  return (state, dispatch) => {
    const $from = state.selection.$from;
    for (let depth = $from.depth; depth > 0; depth--) {
      const node = $from.node(depth);
      if (node.type === hint) {
        if (dispatch) dispatch(state.tr.setNodeMarkup($from.before(depth), null, { ...node.attrs, data: { ...dataOf(node), style } }));
        return true;
      }
    }
    return wrapDirectly(hint, { data: { style } })(state, dispatch);
  };
}

/** Turns the selected textblock into a code block (its text the first line), or sets the syntax of the code block the selection is in. */
export function setCodeBlock(schema: Schema, syntax: string | null): Command {
  const code = schema.nodes.code_block!;
  const line = schema.nodes.code_line!;
  const data = syntax ? { syntax } : {};
  return (state, dispatch) => {
    const $from = state.selection.$from;
    for (let depth = $from.depth; depth > 0; depth--) {
      const node = $from.node(depth);
      if (node.type === code) {
        if (dispatch)
          dispatch(
            state.tr.setNodeMarkup($from.before(depth), null, { ...node.attrs, data: { ...dataOf(node), ...data, ...(syntax ? {} : { syntax: undefined }) } }),
          );
        return true;
      }
    }
    const block = $from.parent;
    if (!block.isTextblock || block.type === line) return false;
    const at = $from.before();
    const index = $from.index($from.depth - 1);
    const replacement = code.create({ data }, line.create(null, block.textContent ? state.schema.text(block.textContent) : null));
    if (!$from.node($from.depth - 1).canReplaceWith(index, index + 1, code)) return false;
    if (dispatch) {
      const tr = state.tr.replaceWith(at, at + block.nodeSize, replacement);
      dispatch(tr.setSelection(TextSelection.create(tr.doc, at + 2 + block.textContent.length)).scrollIntoView());
    }
    return true;
  };
}

/** Inserts a table: a header row of titles and `rows` rows of `columns` empty cells, after the selected block. */
export function insertTable(schema: Schema, rows = 2, columns = 2): Command {
  return (state, dispatch) => {
    const paragraph = () => schema.nodes.paragraph!.create();
    const header = schema.nodes.table_row!.create(
      null,
      Array.from({ length: columns }, (_, index) =>
        schema.nodes.table_header!.create(
          { definition: { type: "text", textAlignment: "left" } },
          schema.nodes.paragraph!.create(null, schema.text(`Column ${index + 1}`)),
        ),
      ),
    );
    const body = Array.from({ length: rows }, () =>
      schema.nodes.table_row!.create(
        null,
        Array.from({ length: columns }, () => schema.nodes.table_cell!.create(null, paragraph())),
      ),
    );
    const table = schema.nodes.table!.create({ data: { view: { type: "grid", columns: [], hideHeader: false } }, isVoid: true }, [header, ...body]);
    return insertBlock(state, dispatch, table);
  };
}

export const addTableRow: Command = addRowAfter;
export const removeTableRow: Command = deleteRow;
export const addTableColumn: Command = addColumnAfter;
export const removeTableColumn: Command = deleteColumn;
export const inTable = (state: EditorState): boolean => isInTable(state);

export const insertDivider =
  (schema: Schema): Command =>
  (state, dispatch) =>
    insertBlock(state, dispatch, schema.nodes.divider!.create({ data: {}, isVoid: true }));

/** Inserts an image block of an image by URL (with its alternative text). */
export function insertImage(schema: Schema, url: string, alt = ""): Command {
  const image = schema.nodes.image!.create({ data: { ref: { kind: "url", url }, ...(alt ? { alt } : {}) }, isVoid: true, fragments: [] });
  return (state, dispatch) => insertBlock(state, dispatch, schema.nodes.images!.create({ data: {}, isVoid: false }, image));
}

/** What a link typed by URL points at, as `@imprint/document` reads links: `/pages/<id>`, `/files/<id>`, `#anchor`, else a URL. */
export function linkRef(url: string): Record<string, string> {
  const page = /^\/pages\/([A-Za-z0-9_-]{1,64})(?:#(.+))?$/.exec(url);
  if (page) return page[2] ? { kind: "anchor", anchor: page[2], page: page[1]! } : { kind: "page", page: page[1]! };
  const file = /^\/files\/([A-Za-z0-9_-]{1,64})$/.exec(url);
  if (file) return { kind: "file", file: file[1]! };
  if (url.startsWith("#") && url.length > 1) return { kind: "anchor", anchor: url.slice(1) };
  return { kind: "url", url };
}

/** Links the selected text to the URL; with no URL, removes the links of the selection. */
export function setLink(schema: Schema, url: string | null): Command {
  const link = schema.marks.link!;
  return (state, dispatch) => {
    const { from, to, empty } = state.selection;
    if (empty && !url) return false;
    if (dispatch) {
      const tr = state.tr;
      if (!url) tr.removeMark(from, to, link);
      else if (empty) tr.insert(from, schema.text(url, [link.create({ ref: linkRef(url), key: newLinkKey() })]));
      else tr.removeMark(from, to, link).addMark(from, to, link.create({ ref: linkRef(url), key: newLinkKey() }));
      dispatch(tr.scrollIntoView());
    }
    return true;
  };
}

export function markActive(state: EditorState, type: MarkType): boolean {
  const { from, $from, to, empty } = state.selection;
  if (empty) return !!type.isInSet(state.storedMarks ?? $from.marks());
  return state.doc.rangeHasMark(from, to, type);
}

export function blockIs(state: EditorState, type: NodeType, attrs?: Attrs): boolean {
  const { $from, to } = state.selection;
  if (state.selection instanceof NodeSelection) return state.selection.node.type === type;
  return to <= $from.end() && $from.parent.type === type && (!attrs || Object.entries(attrs).every(([key, value]) => $from.parent.attrs[key] === value));
}

/** The nearest block around the selection that matches. */
export function ancestor(state: EditorState, matches: (node: Node) => boolean): Node | undefined {
  const $from = state.selection.$from;
  for (let depth = $from.depth; depth > 0; depth--) if (matches($from.node(depth))) return $from.node(depth);
  return undefined;
}

/** Wraps the selected blocks in the type, or lifts them out of the one they are in. */
function wrapOrLift(type: NodeType): Command {
  return (state, dispatch) => (ancestor(state, (node) => node.type === type) ? lift(state, dispatch) : wrapDirectly(type)(state, dispatch));
}

/** Wraps the selected blocks in the type where they are (not in a list made to hold it, as `wrapIn` would). */
function wrapDirectly(type: NodeType, attrs: Attrs | null = null): Command {
  return (state, dispatch) => {
    const range = state.selection.$from.blockRange(state.selection.$to);
    const wrapping = range && findWrapping(range, type, attrs);
    if (!range || !wrapping || wrapping.length !== 1) return false;
    return wrapIn(type, attrs)(state, dispatch);
  };
}

/** Inserts a block after the block the selection is in (replacing an empty paragraph). */
function insertBlock(state: EditorState, dispatch: Parameters<Command>[1], block: Node): boolean {
  const $from = state.selection.$from;
  let depth = $from.depth;
  while (depth > 0 && !$from.node(depth - 1).canReplaceWith($from.indexAfter(depth - 1), $from.indexAfter(depth - 1), block.type)) depth--;
  if (depth === 0 && !state.doc.canReplaceWith($from.indexAfter(0), $from.indexAfter(0), block.type)) return false;
  if (dispatch) {
    const parent = depth > 0 ? $from.node(depth) : undefined;
    const emptyParagraph = parent?.type.name === "paragraph" && parent.content.size === 0;
    const tr = state.tr;
    if (depth > 0 && emptyParagraph) tr.replaceWith($from.before(depth), $from.after(depth), block);
    else tr.insert(depth > 0 ? $from.after(depth) : $from.pos, block);
    dispatch(tr.scrollIntoView());
  }
  return true;
}

/** Markdown typed at the start of a paragraph: `# `, `## `, `### `, `- `, `* `, `1. `, `[ ] `, `> `, and ``` (with a syntax) then Enter or space. */
export function markdownInputRules(schema: Schema): Plugin {
  const codeRule = new InputRule(/^```([A-Za-z0-9_+-]*)\s$/, (state, match, start, end) => {
    const $start = state.doc.resolve(start);
    const index = $start.index($start.depth - 1);
    if (!$start.node($start.depth - 1).canReplaceWith(index, index + 1, schema.nodes.code_block!)) return null;
    const code = schema.nodes.code_block!.create({ data: match[1] ? { syntax: match[1] } : {} }, schema.nodes.code_line!.create());
    const tr = state.tr.delete(start, end);
    tr.replaceWith($start.before(), $start.before() + tr.doc.nodeAt($start.before())!.nodeSize, code);
    return tr.setSelection(TextSelection.create(tr.doc, $start.before() + 2));
  });
  return inputRules({
    rules: [
      textblockTypeInputRule(/^#\s$/, schema.nodes.heading_1!),
      textblockTypeInputRule(/^##\s$/, schema.nodes.heading_2!),
      textblockTypeInputRule(/^###\s$/, schema.nodes.heading_3!),
      wrappingInputRule(/^\[( |x)\]\s$/, schema.nodes.list_tasks!),
      wrappingInputRule(/^\s*([-+*])\s$/, schema.nodes.list_unordered!),
      wrappingInputRule(
        /^(\d+)\.\s$/,
        schema.nodes.list_ordered!,
        (match) => (match[1] === "1" ? {} : { data: { start: Number(match[1]) } }),
        (match, node) => node.childCount + Number((dataOf(node).start as number | undefined) ?? 1) === Number(match[1]),
      ),
      wrappingInputRule(/^\s*>\s$/, schema.nodes.blockquote!),
      codeRule,
    ],
  });
}

/** The keymap: marks (Mod-b, Mod-i, Mod-e, Mod-Shift-s), history (Mod-z, Mod-y, Shift-Mod-z), lists (Enter, Tab, Shift-Tab), tables (Tab), code (Mod-Enter leaves it). */
export function editorKeymaps(schema: Schema): Plugin[] {
  const item = schema.nodes.list_item!;
  return [
    keymap({
      "Mod-b": toggleLeafMark(schema, "bold"),
      "Mod-i": toggleLeafMark(schema, "italic"),
      "Mod-e": toggleLeafMark(schema, "code"),
      "Mod-Shift-s": toggleLeafMark(schema, "strikethrough"),
      "Mod-z": undo,
      "Mod-y": redo,
      "Shift-Mod-z": redo,
      "Mod-Alt-1": toggleHeading(schema, 1),
      "Mod-Alt-2": toggleHeading(schema, 2),
      "Mod-Alt-3": toggleHeading(schema, 3),
      Enter: splitListItem(item),
      "Mod-Enter": leaveCode(schema),
      Tab: chainCommands(goToNextCell(1), sinkListItem(item)),
      "Shift-Tab": chainCommands(goToNextCell(-1), liftListItem(item)),
    }),
    keymap(baseKeymap),
  ];
}

/** Mod-Enter in a code line: a paragraph after the code block. */
function leaveCode(schema: Schema): Command {
  return (state, dispatch) => {
    const $from = state.selection.$from;
    if ($from.parent.type.name !== "code_line") return false;
    const after = $from.after($from.depth - 1);
    if (dispatch) {
      const tr = state.tr.insert(after, schema.nodes.paragraph!.create());
      dispatch(tr.setSelection(TextSelection.create(tr.doc, after + 1)).scrollIntoView());
    }
    return true;
  };
}

/**
 * Gives the rows, cells and columns a table edit made (or a paste copied) their ids at once: a
 * record id, a fragment id, a column id, unique in their table, so every save of the same content
 * gives the same document.
 */
export function tableIds(): Plugin {
  return new Plugin({
    appendTransaction(transactions, _old, state) {
      if (!transactions.some((tr) => tr.docChanged)) return null;
      const tr = state.tr;
      state.doc.descendants((table, tablePos) => {
        if (table.type.name !== "table") return true;
        const seen = { row: new Set<unknown>(), column: new Set<unknown>(), fragment: new Set<unknown>() };
        const fresh = (kind: keyof typeof seen, id: unknown) => {
          const missing = id === null || id === "" || seen[kind].has(id);
          const chosen = missing ? newId(kind) : id;
          seen[kind].add(chosen);
          return missing ? chosen : undefined;
        };
        table.descendants((node, pos) => {
          const at = tablePos + 1 + pos;
          if (node.type.name === "table_row") {
            const isHeader = node.firstChild?.type.name === "table_header";
            const id = isHeader ? undefined : fresh("row", node.attrs.id);
            if (id !== undefined) tr.setNodeMarkup(at, null, { ...node.attrs, id });
            return true;
          }
          if (node.type.name === "table_header") {
            const column = fresh("column", node.attrs.column);
            if (column !== undefined)
              tr.setNodeMarkup(at, null, { ...node.attrs, column, definition: (node.attrs.definition as unknown) ?? { type: "text", textAlignment: "left" } });
          } else if (node.type.name === "table_cell" && node.attrs.value === null) {
            const fragment = fresh("fragment", node.attrs.fragment);
            if (fragment !== undefined) tr.setNodeMarkup(at, null, { ...node.attrs, fragment });
          }
          return false;
        });
        return false;
      });
      return tr.docChanged ? tr.setMeta("addToHistory", false) : null;
    },
  });
}

/** Every plugin the editor runs: input rules, keymaps, history, table editing and ids. */
export function editorPlugins(schema: Schema): Plugin[] {
  return [markdownInputRules(schema), ...editorKeymaps(schema), history(), tableEditing(), tableIds()];
}
