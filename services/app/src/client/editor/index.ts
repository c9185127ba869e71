/**
 * The page editor: GitBook's JSON document edited in ProseMirror, as a Preact component
 * (`DocumentEditor`) or mounted imperatively (`createEditor`). See docs/app.md § The editor.
 */
export { createEditor, type Editor, type EditorOptions } from "./core.js";
export { DocumentEditor, type DocumentEditorProps } from "./editor.js";
export { documentToProseMirror, proseMirrorToDocument } from "./convert.js";
export { schema } from "./schema.js";
