/**
 * Markdown ↔ GitBook JSON document, shared by the services that store markdown and answer
 * `format=document` (content's page bodies, collaboration's comments). Loaded only by them
 * (`@imprint/document`, pure domain code), so other processes never load the markdown parser.
 */
export * from "./document.js";
export * from "./to-markdown.js";
export * from "./conditions.js";
