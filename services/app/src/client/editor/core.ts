import type { JsonDocument } from "@imprint/document";
import { EditorState } from "prosemirror-state";
import { EditorView } from "prosemirror-view";
import { editorPlugins } from "./commands.js";
import { documentToProseMirror, proseMirrorToDocument } from "./convert.js";
import { schema } from "./schema.js";

export interface EditorOptions {
  /** The page's document (GitBook's JSON document, `format=document`). */
  document: JsonDocument;
  /** Called after each change of the content, with the document as it now is. */
  onChange?: (document: JsonDocument) => void;
  /** Shows the document without letting it be changed. */
  readOnly?: boolean;
  /** The editable area's accessible name. */
  label?: string;
  /** Called after every transaction (selection moves included): what the toolbar follows. */
  onUpdate?: (view: EditorView) => void;
}

export interface Editor {
  /** The document as it now is; blocks not edited are as they were given. */
  getDocument(): JsonDocument;
  /** Replaces the content (and the undo history) with another document. */
  setDocument(document: JsonDocument): void;
  focus(): void;
  destroy(): void;
  /** The ProseMirror view (the toolbar runs its commands on it). */
  readonly view: EditorView;
}

const stateFor = (document: JsonDocument) => EditorState.create({ schema, doc: documentToProseMirror(document, schema), plugins: editorPlugins(schema) });

/** Mounts an editor in the element. */
export function createEditor(element: HTMLElement, options: EditorOptions): Editor {
  let readOnly = options.readOnly === true;
  const view = new EditorView(element, {
    state: stateFor(options.document),
    editable: () => !readOnly,
    attributes: {
      class: "imprint-editor-content",
      role: "textbox",
      "aria-multiline": "true",
      "aria-label": options.label ?? "Page content",
      ...(readOnly ? { "aria-readonly": "true" } : {}),
    },
    dispatchTransaction(transaction) {
      view.updateState(view.state.apply(transaction));
      if (transaction.docChanged) options.onChange?.(proseMirrorToDocument(view.state.doc));
      options.onUpdate?.(view);
    },
  });
  options.onUpdate?.(view);
  return {
    view,
    getDocument: () => proseMirrorToDocument(view.state.doc),
    setDocument(document) {
      view.updateState(stateFor(document));
      options.onUpdate?.(view);
    },
    focus: () => view.focus(),
    destroy() {
      readOnly = true;
      view.destroy();
    },
  };
}
