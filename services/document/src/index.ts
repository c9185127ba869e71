/**
 * Markdown ↔ GitBook JSON document → HTML, shared by the services that store markdown and answer
 * `format=document` (content's page bodies, collaboration's comments) and the reader. Loaded only by them
 * (`@imprint/document`, pure domain code), so other processes never load the markdown parser.
 */
export * from "./document.js";
export * from "./includes.js";
export * from "./to-markdown.js";
export * from "./conditions.js";
export * from "./to-html.js";
export * from "./preserve.js";
