/**
 * The HTML renderer of the document model (`@imprint/document/html`), apart from the model so that
 * the processes that only convert markdown and documents (content, collaboration, publishing) never
 * load its syntax highlighter's grammars, KaTeX and the HTML parser.
 */
export * from "./to-html.js";
