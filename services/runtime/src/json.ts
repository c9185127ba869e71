import { AppError } from "./errors.js";

/**
 * How deep free-form JSON may nest, wherever it enters (the gateway's request bodies, JSON text
 * fields of gRPC requests). Code that walks such JSON recursively (JSON.stringify, validators,
 * PostgreSQL's jsonb parser) overflows its stack a few thousand levels down, which answered 500;
 * past this bound the answer is a 400. It leaves room for GitBook's document JSON: 64 nested blocks
 * (the document model's own bound) take about 130 levels.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * The deepest nesting of objects and arrays in JSON text, read without parsing (and without
 * recursion), stopping as soon as it passes `stopAbove`. Brackets inside strings do not count.
 * Text that is not JSON gives a number too; parsing it is what tells.
 */
export function jsonNestingDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
    }
  }
  return deepest;
}

/** The 400 message for JSON nested past the bound: `field: nesting deeper than N`. */
export function jsonTooDeep(field: string, maxDepth = MAX_JSON_DEPTH): string {
  return `${field}: nesting deeper than ${maxDepth}`;
}

/**
 * Parses JSON text from a request (a `*_json` field of a gRPC request): invalid_argument naming
 * `field` when it nests deeper than `maxDepth` or does not parse (`malformed` is that message's rule).
 */
export function parseRequestJson(text: string, field: string, options: { maxDepth?: number; malformed?: string } = {}): unknown {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  if (jsonNestingDepth(text, maxDepth) > maxDepth) throw AppError.invalidArgument(jsonTooDeep(field, maxDepth));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw AppError.invalidArgument(`${field}: ${options.malformed ?? "must be valid JSON"}`);
  }
}
