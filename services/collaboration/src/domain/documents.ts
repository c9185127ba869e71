import { DocumentConversionError, documentToMarkdown, type JsonDocument } from "@imprint/document";
import { AppError, jsonNestingDepth, MAX_JSON_DEPTH } from "@imprint/runtime";

/**
 * GitBook's JSON document (JSON text) of a review comment or a description, read as the markdown
 * kept; an error names `field` (and the node path within it).
 */
export function markdownOfDocument(field: string, documentJson: string): string {
  if (jsonNestingDepth(documentJson, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw AppError.invalidArgument(`${field}: nesting deeper than ${MAX_JSON_DEPTH}`);
  let document: unknown;
  try {
    document = JSON.parse(documentJson);
  } catch {
    throw AppError.invalidArgument(`${field}: must be a JSON document`);
  }
  try {
    // The conversion ends a block with a newline; what is kept is the text, as a client would type it.
    return documentToMarkdown(document as JsonDocument).trimEnd();
  } catch (error) {
    if (error instanceof DocumentConversionError) throw AppError.invalidArgument(`${error.path === "" ? field : `${field}.${error.path}`}: ${error.reason}`);
    throw error;
  }
}
