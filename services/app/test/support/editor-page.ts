import type { JsonDocument } from "@imprint/document";
import { h, render } from "preact";
import { DocumentEditor } from "../../src/client/editor/index.js";

/**
 * The page the browser test loads: the editor on the document the test put in
 * `window.initialDocument`, every document it reports pushed to `window.changes`. It imports no
 * value of `@imprint/document`, so the markdown conversions reach the page only as the source
 * view's chunk.
 */
const page = window as unknown as { initialDocument: JsonDocument; changes: JsonDocument[] };
page.changes = [];
render(
  h(DocumentEditor, { document: page.initialDocument, onChange: (changed: JsonDocument) => page.changes.push(changed) }),
  document.getElementById("root")!,
);
