/**
 * Markdown ↔ GitBook JSON document → HTML, shared by the services that store markdown and answer
 * `format=document` (content's page bodies, collaboration's comments) and the reader. Loaded only by them
 * (`@imprint/document`, pure domain code), so other processes never load the markdown parser. The HTML
 * renderer is apart (`@imprint/document/html`): its highlighter's grammars, KaTeX and the HTML parser
 * are loaded only by the processes that render pages (the reader, the app).
 */
export * from "./document.js";
export * from "./includes.js";
export * from "./to-markdown.js";
export * from "./conditions.js";
export * from "./preserve.js";
