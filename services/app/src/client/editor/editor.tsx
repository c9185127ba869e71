import type { JsonDocument } from "@imprint/document";
import type { Command } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { useEffect, useRef, useState } from "preact/hooks";
import {
  addTableColumn,
  addTableRow,
  ancestor,
  blockIs,
  HINT_STYLES,
  type HintStyle,
  inTable,
  insertDivider,
  insertImage,
  insertTable,
  isList,
  type LeafMark,
  markActive,
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
} from "./commands.js";
import { createEditor, type Editor } from "./core.js";
import { dataOf, schema } from "./schema.js";
import "./editor.css";

export interface DocumentEditorProps {
  /** The document to edit; a new object replaces the content. */
  document: JsonDocument;
  /** Called with the document after each change. */
  onChange?: (document: JsonDocument) => void;
  readOnly?: boolean;
  /** The editable area's accessible name (default "Page content"). */
  label?: string;
}

type Source = typeof import("./source.js");
/** The markdown conversions: a chunk loaded the first time the source view opens. */
let source: Promise<Source> | undefined;
const loadSource = () => (source ??= import("./source.js"));

const MAC = typeof navigator !== "undefined" && /Mac|iP(hone|ad)/.test(navigator.platform);
const shortcut = (keys: string) => keys.replace("Mod", MAC ? "⌘" : "Ctrl");

/** The editor: a toolbar, the document's content, and a markdown source view. */
export function DocumentEditor({ document, onChange, readOnly = false, label }: DocumentEditorProps) {
  const mount = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  /**
   * The documents given to onChange (and the one the editor was made with): passed back as the
   * prop (a controlled editor), they are never set again. Not only the last one: a change given
   * back may arrive after the next keystroke's, and setting it then would undo that keystroke.
   */
  const emitted = useRef(new WeakSet<JsonDocument>());
  const emit = (changed: JsonDocument) => {
    emitted.current.add(changed);
    onChangeRef.current?.(changed);
  };
  const [view, setView] = useState<{ view: EditorView; version: number } | null>(null);
  const [markdown, setMarkdown] = useState<string | null>(null);
  const [sourceError, setSourceError] = useState<string | null>(null);
  const [prompt, setPrompt] = useState<{ kind: "link" | "image"; value: string } | null>(null);

  useEffect(() => {
    emitted.current.add(document);
    const created = createEditor(mount.current!, {
      document,
      readOnly,
      ...(label ? { label } : {}),
      onChange: emit,
      onUpdate: (updated) => setView((previous) => ({ view: updated, version: (previous?.version ?? 0) + 1 })),
    });
    editor.current = created;
    return () => {
      created.destroy();
      editor.current = null;
    };
    // The document prop is read again below when it changes; readOnly and label remount.
  }, [readOnly, label]);

  useEffect(() => {
    if (editor.current && !emitted.current.has(document)) editor.current.setDocument(document);
  }, [document]);

  const run = (command: Command) => {
    const current = editor.current;
    if (!current) return;
    command(current.view.state, current.view.dispatch);
    current.focus();
  };
  const state = view?.view.state;
  const can = (command: Command) => !readOnly && markdown === null && !!state && command(state);

  async function toggleSource() {
    const current = editor.current;
    if (!current) return;
    setSourceError(null);
    try {
      const { toMarkdown, fromMarkdown } = await loadSource();
      if (markdown === null) {
        setMarkdown(toMarkdown(current.getDocument()));
        return;
      }
      const read = fromMarkdown(markdown);
      current.setDocument(read);
      emit(read);
      setMarkdown(null);
    } catch (error) {
      setSourceError(error instanceof Error ? error.message : String(error));
    }
  }

  const markButton = (mark: LeafMark, text: string, name: string, keys: string) => (
    <ToolbarButton
      label={name}
      shortcut={keys}
      pressed={!!state && markActive(state, schema.marks[mark]!)}
      disabled={!can(toggleLeafMark(schema, mark))}
      onClick={() => run(toggleLeafMark(schema, mark))}
    >
      {text}
    </ToolbarButton>
  );
  const code = state ? ancestor(state, (node) => node.type.name === "code_block") : undefined;
  const hint = state ? ancestor(state, (node) => node.type.name === "hint") : undefined;
  const list = state ? ancestor(state, isList) : undefined;

  return (
    <div class="imprint-editor">
      {!readOnly && (
        <div class="imprint-editor-toolbar" role="toolbar" aria-label="Formatting">
          {([1, 2, 3] as const).map((level) => (
            <ToolbarButton
              key={level}
              label={`Heading ${level}`}
              shortcut={`Mod-Alt-${level}`}
              pressed={!!state && blockIs(state, schema.nodes[`heading_${level}`]!)}
              disabled={!can(toggleHeading(schema, level))}
              onClick={() => run(toggleHeading(schema, level))}
            >
              {`H${level}`}
            </ToolbarButton>
          ))}
          {markButton("bold", "B", "Bold", "Mod-b")}
          {markButton("italic", "I", "Italic", "Mod-i")}
          {markButton("code", "</>", "Inline code", "Mod-e")}
          {markButton("strikethrough", "S", "Strikethrough", "Mod-Shift-s")}
          <ToolbarButton
            label="Link"
            pressed={!!state && markActive(state, schema.marks.link!)}
            disabled={readOnly || markdown !== null}
            onClick={() => setPrompt({ kind: "link", value: "" })}
          >
            Link
          </ToolbarButton>
          <ToolbarButton
            label="Bulleted list"
            pressed={list?.type.name === "list_unordered"}
            disabled={!can(toggleList(schema, "list_unordered"))}
            onClick={() => run(toggleList(schema, "list_unordered"))}
          >
            • List
          </ToolbarButton>
          <ToolbarButton
            label="Numbered list"
            pressed={list?.type.name === "list_ordered"}
            disabled={!can(toggleList(schema, "list_ordered"))}
            onClick={() => run(toggleList(schema, "list_ordered"))}
          >
            1. List
          </ToolbarButton>
          <ToolbarButton
            label="Task list"
            pressed={list?.type.name === "list_tasks"}
            disabled={!can(toggleList(schema, "list_tasks"))}
            onClick={() => run(toggleList(schema, "list_tasks"))}
          >
            ☐ Tasks
          </ToolbarButton>
          {list?.type.name === "list_tasks" && (
            <ToolbarButton label="Check or uncheck the task" disabled={!can(toggleTask)} onClick={() => run(toggleTask)}>
              ✓
            </ToolbarButton>
          )}
          <ToolbarButton
            label="Quote"
            pressed={!!state && !!ancestor(state, (node) => node.type.name === "blockquote")}
            disabled={!can(toggleQuote(schema))}
            onClick={() => run(toggleQuote(schema))}
          >
            ❝
          </ToolbarButton>
          <ToolbarButton label="Code block" pressed={!!code} disabled={!can(setCodeBlock(schema, null))} onClick={() => run(setCodeBlock(schema, null))}>
            {"{ }"}
          </ToolbarButton>
          {code && (
            <input
              class="imprint-editor-syntax"
              aria-label="Code syntax"
              placeholder="syntax"
              value={typeof dataOf(code).syntax === "string" ? (dataOf(code).syntax as string) : ""}
              onChange={(event) => run(setCodeBlock(schema, event.currentTarget.value.trim() || null))}
            />
          )}
          <select
            aria-label="Hint"
            disabled={!can(setHint(schema, "info"))}
            value={hint ? String(dataOf(hint).style) : ""}
            onChange={(event) => {
              const style = event.currentTarget.value as HintStyle | "";
              if (style) run(setHint(schema, style));
            }}
          >
            <option value="" disabled>
              Hint
            </option>
            {HINT_STYLES.map((style) => (
              <option key={style} value={style}>
                {`Hint: ${style}`}
              </option>
            ))}
          </select>
          <ToolbarButton label="Insert table" disabled={!can(insertTable(schema))} onClick={() => run(insertTable(schema))}>
            Table
          </ToolbarButton>
          {state && inTable(state) && (
            <>
              <ToolbarButton label="Add row" disabled={!can(addTableRow)} onClick={() => run(addTableRow)}>
                + Row
              </ToolbarButton>
              <ToolbarButton label="Remove row" disabled={!can(removeTableRow)} onClick={() => run(removeTableRow)}>
                − Row
              </ToolbarButton>
              <ToolbarButton label="Add column" disabled={!can(addTableColumn)} onClick={() => run(addTableColumn)}>
                + Column
              </ToolbarButton>
              <ToolbarButton label="Remove column" disabled={!can(removeTableColumn)} onClick={() => run(removeTableColumn)}>
                − Column
              </ToolbarButton>
            </>
          )}
          <ToolbarButton label="Insert divider" disabled={!can(insertDivider(schema))} onClick={() => run(insertDivider(schema))}>
            ―
          </ToolbarButton>
          <ToolbarButton label="Insert image by URL" disabled={readOnly || markdown !== null} onClick={() => setPrompt({ kind: "image", value: "" })}>
            Image
          </ToolbarButton>
          <ToolbarButton label="Markdown source" pressed={markdown !== null} onClick={() => void toggleSource()}>
            Markdown
          </ToolbarButton>
        </div>
      )}
      {prompt && (
        <form
          class="imprint-editor-prompt"
          onSubmit={(event) => {
            event.preventDefault();
            const value = prompt.value.trim();
            if (value) run(prompt.kind === "link" ? setLink(schema, value) : insertImage(schema, value));
            setPrompt(null);
          }}
        >
          <label>
            {prompt.kind === "link" ? "Link URL" : "Image URL"}
            <input
              type="text"
              autoFocus
              value={prompt.value}
              onInput={(event) => setPrompt({ ...prompt, value: event.currentTarget.value })}
              onKeyDown={(event) => event.key === "Escape" && setPrompt(null)}
            />
          </label>
          <button type="submit">{prompt.kind === "link" ? "Apply link" : "Insert image"}</button>
          {prompt.kind === "link" && (
            <button
              type="button"
              onClick={() => {
                run(setLink(schema, null));
                setPrompt(null);
              }}
            >
              Remove link
            </button>
          )}
          <button type="button" onClick={() => setPrompt(null)}>
            Cancel
          </button>
        </form>
      )}
      {sourceError && (
        <p class="imprint-editor-error" role="alert">
          {sourceError}
        </p>
      )}
      <div ref={mount} class="imprint-editor-body" hidden={markdown !== null} />
      {markdown !== null && (
        <textarea class="imprint-editor-source" aria-label="Markdown source" value={markdown} onInput={(event) => setMarkdown(event.currentTarget.value)} />
      )}
    </div>
  );
}

function ToolbarButton(props: {
  label: string;
  shortcut?: string;
  pressed?: boolean;
  disabled?: boolean;
  onClick: () => void;
  children: preact.ComponentChildren;
}) {
  const title = props.shortcut ? `${props.label} (${shortcut(props.shortcut)})` : props.label;
  return (
    <button
      type="button"
      class="imprint-editor-button"
      aria-label={props.label}
      title={title}
      {...(props.pressed !== undefined ? { "aria-pressed": props.pressed } : {})}
      {...(props.shortcut ? { "aria-keyshortcuts": props.shortcut.replace("Mod", MAC ? "Meta" : "Control") } : {})}
      disabled={props.disabled}
      // Keeps the selection in the content while the button is clicked.
      onMouseDown={(event) => event.preventDefault()}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}
