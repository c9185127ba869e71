import { documentToMarkdown, type JsonDocument, markdownToDocument } from "@imprint/document";

/**
 * The markdown source view's conversions, `@imprint/document`'s own (the ones content uses when a
 * page is saved as markdown): loaded as a chunk of its own, only when the source view opens, so the
 * editor does not carry the markdown parser.
 */

/** The page's markdown, as `format=markdown` would give it for this document. */
export function toMarkdown(document: JsonDocument): string {
  return documentToMarkdown(document);
}

/** The document the markdown reads as. */
export function fromMarkdown(markdown: string): JsonDocument {
  return markdownToDocument(markdown);
}
