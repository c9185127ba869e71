import { type DocumentBlock, documentToMarkdown, type JsonDocument, markdownToDocument } from "@imprint/document";
import { redo, undo } from "prosemirror-history";
import { type Command, EditorState, type Plugin, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { describe, expect, it } from "vitest";
import {
  addTableColumn,
  addTableRow,
  editorPlugins,
  insertDivider,
  insertImage,
  insertTable,
  markdownInputRules,
  removeTableColumn,
  removeTableRow,
  setCodeBlock,
  setHint,
  setLink,
  toggleHeading,
  toggleLeafMark,
  toggleList,
  toggleQuote,
  toggleTask,
} from "../src/client/editor/commands.js";
import { documentToProseMirror, proseMirrorToDocument } from "../src/client/editor/convert.js";
import { schema } from "../src/client/editor/schema.js";

const text = (value: string, marks: string[] = []) => ({
  object: "text",
  leaves: [{ object: "leaf", text: value, marks: marks.map((type) => ({ object: "mark", type })) }],
});
const paragraph = (...nodes: unknown[]) => ({ object: "block", type: "paragraph", data: {}, nodes: nodes.length > 0 ? nodes : [text("")] });

/** An editor state of the markdown, the selection put by `select` (positions in the document). */
function stateOf(markdown: string): EditorState {
  return EditorState.create({ schema, doc: documentToProseMirror(markdownToDocument(markdown), schema), plugins: editorPlugins(schema) });
}

/** The position of the text's first character (inside its textblock). */
function positionOf(state: EditorState, needle: string): number {
  let found = -1;
  state.doc.descendants((node, pos) => {
    if (found < 0 && node.isText && node.text!.includes(needle)) found = pos + node.text!.indexOf(needle);
    return found < 0;
  });
  if (found < 0) throw new Error(`"${needle}" is not in the document`);
  return found;
}

function select(state: EditorState, needle: string, length = needle.length): EditorState {
  const from = positionOf(state, needle);
  return state.apply(state.tr.setSelection(TextSelection.create(state.doc, from, from + length)));
}

function run(state: EditorState, command: Command): EditorState {
  let next = state;
  const applied = command(state, (tr: Transaction) => {
    next = state.apply(tr);
  });
  expect(applied).toBe(true);
  return next;
}

const saved = (state: EditorState): JsonDocument => proseMirrorToDocument(state.doc);
const markdownOf = (state: EditorState): string => documentToMarkdown(saved(state));

/** Types the text at the selection as a person would: the input rules see it first. */
function type(state: EditorState, typed: string): EditorState {
  let current = state;
  const view = {
    get state() {
      return current;
    },
    composing: false,
    dispatch(tr: Transaction) {
      current = current.apply(tr);
    },
  } as unknown as EditorView;
  const rules = markdownInputRules(schema) as Plugin & { props: { handleTextInput: (view: EditorView, from: number, to: number, text: string) => boolean } };
  for (const character of typed) {
    const { from, to } = current.selection;
    if (!rules.props.handleTextInput.call(rules, view, from, to, character)) view.dispatch(current.tr.insertText(character, from, to));
  }
  return current;
}

describe("the editor's commands produce the expected document", () => {
  it("toggles leaf marks on the selected text, and off again", () => {
    const bold = run(select(stateOf("hello world"), "world"), toggleLeafMark(schema, "bold"));
    expect(saved(bold).nodes).toStrictEqual([paragraph({ object: "text", leaves: [...text("hello ").leaves, ...text("world", ["bold"]).leaves] })]);
    const both = run(bold, toggleLeafMark(schema, "italic"));
    expect(markdownOf(both)).toBe("hello **_world_**\n");
    expect(saved(run(run(both, toggleLeafMark(schema, "bold")), toggleLeafMark(schema, "italic"))).nodes).toStrictEqual([paragraph(text("hello world"))]);
  });

  it("a leaf's mark order is kept while its marks are, and written in the schema's order once they change", () => {
    const read = markdownToDocument("_**both**_ after");
    const state = EditorState.create({ schema, doc: documentToProseMirror(read, schema) });
    expect(saved(state)).toStrictEqual(read);
    const struck = run(select(state, "both"), toggleLeafMark(schema, "strikethrough"));
    expect((saved(struck).nodes[0]!.nodes![0] as { leaves: { marks: { type: string }[] }[] }).leaves[0]!.marks.map((m) => m.type)).toEqual([
      "bold",
      "italic",
      "strikethrough",
    ]);
  });

  it("links the selected text by URL, a page link as a page reference", () => {
    const linked = run(select(stateOf("see the guide"), "guide"), setLink(schema, "/pages/p1"));
    expect(saved(linked).nodes[0]!.nodes).toStrictEqual([
      text("see the "),
      { object: "inline", type: "link", isVoid: false, data: { ref: { kind: "page", page: "p1" } }, nodes: [text("guide")] },
    ]);
    expect(saved(run(select(linked, "guide"), setLink(schema, null))).nodes).toStrictEqual([paragraph(text("see the guide"))]);
  });

  it("wraps paragraphs in each kind of list and changes a list's kind; a task list's items have their check", () => {
    const bullets = run(select(stateOf("one"), "one"), toggleList(schema, "list_unordered"));
    expect(markdownOf(bullets)).toBe("- one\n");
    const tasks = run(bullets, toggleList(schema, "list_tasks"));
    expect(saved(tasks).nodes[0]).toStrictEqual({
      object: "block",
      type: "list-tasks",
      data: {},
      nodes: [{ object: "block", type: "list-item", data: { checked: false }, nodes: [paragraph(text("one"))] }],
    });
    expect(markdownOf(run(tasks, toggleTask))).toBe("- [x] one\n");
    const numbered = run(tasks, toggleList(schema, "list_ordered"));
    expect(saved(numbered).nodes[0]).toStrictEqual({
      object: "block",
      type: "list-ordered",
      data: {},
      nodes: [{ object: "block", type: "list-item", data: {}, nodes: [paragraph(text("one"))] }],
    });
    expect(saved(run(numbered, toggleList(schema, "list_ordered"))).nodes).toStrictEqual([paragraph(text("one"))]);
  });

  it("makes headings, quotes and code blocks of the selected block", () => {
    expect(saved(run(select(stateOf("Title"), "Title"), toggleHeading(schema, 2))).nodes).toStrictEqual([
      { object: "block", type: "heading-2", data: {}, nodes: [text("Title")] },
    ]);
    const quoted = run(select(stateOf("said"), "said"), toggleQuote(schema));
    expect(saved(quoted).nodes).toStrictEqual([{ object: "block", type: "blockquote", data: {}, nodes: [paragraph(text("said"))] }]);
    expect(saved(run(quoted, toggleQuote(schema))).nodes).toStrictEqual([paragraph(text("said"))]);
    const code = run(select(stateOf("const a = 1;"), "const"), setCodeBlock(schema, "ts"));
    expect(markdownOf(code)).toBe("```ts\nconst a = 1;\n```\n");
    expect(markdownOf(run(code, setCodeBlock(schema, "js")))).toBe("```js\nconst a = 1;\n```\n");
  });

  it("wraps the selection in a hint of a style, and changes its style", () => {
    const hint = run(select(stateOf("careful"), "careful"), setHint(schema, "warning"));
    expect(saved(hint).nodes).toStrictEqual([{ object: "block", type: "hint", data: { style: "warning" }, nodes: [paragraph(text("careful"))] }]);
    expect(markdownOf(run(hint, setHint(schema, "danger")))).toBe('{% hint style="danger" %}\n\ncareful\n\n{% endhint %}\n');
  });

  it("inserts a table, adds and removes rows and columns; the saved table is GitBook's records and columns", () => {
    const table = run(select(stateOf("before"), "before"), insertTable(schema, 1, 2));
    const block = saved(table).nodes[1]!;
    expect(block.type).toBe("table");
    expect(block.isVoid).toBe(true);
    expect(markdownOf(table)).toBe("before\n\n| Column 1 | Column 2 |\n| -------- | -------- |\n|          |          |\n");
    // Into the first body cell, then one more row and one more column, and type in the new cell.
    let cell = -1;
    table.doc.descendants((node, pos) => {
      if (cell < 0 && node.type.name === "table_cell") cell = pos + 2;
      return cell < 0;
    });
    let edited = table.apply(table.tr.setSelection(TextSelection.create(table.doc, cell)));
    edited = run(run(edited, addTableRow), addTableColumn);
    const data = saved(edited).nodes[1]!.data as {
      view: { columns: string[] };
      records: Record<string, { values: Record<string, string> }>;
      definition: Record<string, { title: string }>;
    };
    expect(data.view.columns).toHaveLength(3);
    expect(Object.keys(data.records)).toHaveLength(2);
    expect(new Set(data.view.columns).size).toBe(3);
    const fragments = saved(edited).nodes[1]!.fragments!.map((fragment) => fragment.fragment);
    expect(new Set(fragments).size).toBe(6);
    for (const record of Object.values(data.records)) expect(Object.values(record.values).every((value) => fragments.includes(value))).toBe(true);
    expect(markdownToDocument(markdownOf(edited)).nodes[1]!.type).toBe("table");
    // Every save of the same content is the same document (new rows, cells and columns got their ids when made).
    expect(saved(edited)).toStrictEqual(saved(edited));
    // The selection is in the first column: the column added after it and "Column 2" stay.
    const removed = run(run(edited, removeTableRow), removeTableColumn);
    expect(markdownOf(removed)).toBe("before\n\n|   | Column 2 |\n| - | -------- |\n|   |          |\n");
    // A column removed from a table read from markdown: the other keeps its ids and content.
    const column = select(stateOf("| a | b |\n| - | - |\n| 1 | 2 |"), "2");
    const kept = saved(run(column, removeTableColumn)).nodes[0]!;
    const original = markdownToDocument("| a | b |\n| - | - |\n| 1 | 2 |").nodes[0]!;
    expect((kept.data as { view: { columns: string[] } }).view.columns).toEqual(["c0"]);
    expect(kept.fragments).toStrictEqual([original.fragments![0]]);
  });

  it("does not put a block where GitBook does not allow it (a save would refuse it)", () => {
    const inQuote = select(stateOf("> said"), "said");
    expect(setCodeBlock(schema, null)(inQuote)).toBe(false);
    expect(insertTable(schema)(inQuote)).toBe(true);
    // The table goes after the quote, at the top level.
    expect(saved(run(inQuote, insertTable(schema))).nodes.map((block) => block.type)).toEqual(["blockquote", "table"]);
    const inHint = select(stateOf('{% hint style="info" %}\nnote\n{% endhint %}'), "note");
    expect(saved(run(inHint, setHint(schema, "danger"))).nodes[0]!.data).toEqual({ style: "danger" });
    expect(toggleQuote(schema)(inHint)).toBe(false);
  });

  it("inserts a divider and an image by URL after the selected block", () => {
    const state = run(run(select(stateOf("text"), "text"), insertDivider(schema)), insertImage(schema, "https://e.com/a.png", "A"));
    const blocks = saved(state).nodes;
    expect(blocks.map((block) => block.type)).toEqual(["paragraph", "images", "divider"]);
    expect(blocks[1]).toStrictEqual({
      object: "block",
      type: "images",
      isVoid: false,
      data: {},
      nodes: [{ object: "block", type: "image", isVoid: true, data: { ref: { kind: "url", url: "https://e.com/a.png" }, alt: "A" }, fragments: [] }],
    } satisfies DocumentBlock);
    expect(markdownOf(state)).toBe("text\n\n![A](https://e.com/a.png)\n\n***\n");
  });

  it("reads markdown typed at the start of a paragraph: headings, lists, quotes and code", () => {
    const at = (state: EditorState) => state.apply(state.tr.setSelection(TextSelection.create(state.doc, 1)));
    const empty = at(stateOf(""));
    expect(saved(type(empty, "## Title")).nodes).toStrictEqual([{ object: "block", type: "heading-2", data: {}, nodes: [text("Title")] }]);
    expect(markdownOf(type(empty, "- item"))).toBe("- item\n");
    expect(markdownOf(type(empty, "3. third"))).toBe("3. third\n");
    expect(markdownOf(type(empty, "> quoted"))).toBe("> quoted\n");
    expect(markdownOf(type(empty, "```sh x"))).toBe("```sh\nx\n```\n");
  });

  it("Enter in a code line starts another code line when saved; undo and redo are in the history", () => {
    const code = run(select(stateOf("```\nab\n```"), "b", 0), (state, dispatch) => {
      dispatch?.(state.tr.insertText("\n"));
      return true;
    });
    expect(saved(code).nodes[0]!.nodes).toHaveLength(2);
    expect(markdownOf(code)).toBe("```\na\nb\n```\n");
    const undone = run(code, undo);
    expect(markdownOf(undone)).toBe("```\nab\n```\n");
    expect(markdownOf(run(undone, redo))).toBe("```\na\nb\n```\n");
  });
});
