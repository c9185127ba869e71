import { createHash } from "node:crypto";
import type { validate } from "@readme/openapi-parser";
import { parse as parseYaml } from "yaml";
import type { ParseLimits } from "../domain/limits.js";
import { failure, type ParsedSpecDocument, type ProcessingFailure } from "./outcome.js";

/** What validate() takes besides a path: a parsed Swagger or OpenAPI document. */
type OpenApiDocument = Exclude<Parameters<typeof validate>[0], string>;

const invalid = (code: string, message: string) => failure("PARSE_ERROR", [{ code, message }]);

function decodeText(bytes: Buffer): string | ProcessingFailure {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return invalid("not_text", "the document is not UTF-8 text");
  }
  // PostgreSQL text and jsonb cannot hold NUL; no JSON or YAML specification needs it.
  if (text.includes("\u0000")) return invalid("not_text", "the document contains NUL characters");
  return text.replace(/^\uFEFF/, "");
}

function parseText(text: string): { format: "json" | "yaml"; value: unknown } | ProcessingFailure {
  if (text.trim() === "") return invalid("empty_document", "the document is empty");
  // JSON documents are also YAML, but JSON.parse is much faster and its errors are clearer.
  if (/^\s*[{[]/.test(text)) {
    try {
      return { format: "json", value: JSON.parse(text) as unknown };
    } catch (error) {
      return invalid("invalid_json", `the document is not valid JSON: ${(error as Error).message}`);
    }
  }
  try {
    // Bounded alias expansion guards against "billion laughs" documents.
    return { format: "yaml", value: parseYaml(text, { maxAliasCount: 1000, uniqueKeys: true, prettyErrors: true }) as unknown };
  } catch (error) {
    return invalid("invalid_yaml", `the document is neither JSON nor valid YAML: ${(error as Error).message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function specificationOf(document: Record<string, unknown>): string {
  if (typeof document.openapi === "string") return `openapi ${document.openapi}`;
  if (typeof document.swagger === "string") return `swagger ${document.swagger}`;
  return "unknown";
}

/**
 * Parses fetched bytes as JSON or YAML and validates the result as Swagger 2.0 or OpenAPI 3.0/3.1
 * with @readme/openapi-parser, which also resolves every `$ref`. External references (other files
 * and URLs) are not followed: fetching them would bypass the fetch guard.
 */
export async function parseSpecDocument(bytes: Buffer, limits: ParseLimits): Promise<ParsedSpecDocument | ProcessingFailure> {
  const text = decodeText(bytes);
  if (typeof text !== "string") return text;
  const parsed = parseText(text);
  if ("code" in parsed) return parsed;
  if (!isObject(parsed.value)) return invalid("invalid_document", "the document is not an object with an openapi or swagger field");
  const document = parsed.value;
  // Loaded by the first specification parsed, not at start-up (a few MB of a process that may never parse one).
  const parser = await import("@readme/openapi-parser");
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    // validate() dereferences in place: it gets a copy, the stored document keeps its $refs.
    result = await parser.validate(structuredClone(document) as unknown as OpenApiDocument, {
      resolve: { external: false },
      timeoutMs: limits.dereferenceTimeoutMs,
      validate: { errors: { colorize: false } },
    });
  } catch (error) {
    return invalid("invalid_document", `the document could not be validated: ${(error as Error).message}`);
  }
  if (!result.valid) {
    const problems = result.errors.map((problem) => ({ code: "invalid_document", message: problem.message }));
    return failure("PARSE_ERROR", problems, problems.length + result.additionalErrors);
  }
  const info = isObject(document.info) ? document.info : {};
  return {
    contentHash: createHash("sha256").update(bytes).digest("hex"),
    sizeBytes: bytes.length,
    format: parsed.format,
    rawText: text,
    document,
    title: typeof info.title === "string" ? info.title : "",
    // YAML reads `version: 1.0` as a number.
    apiVersion: typeof info.version === "string" ? info.version : typeof info.version === "number" ? String(info.version) : "",
    specification: specificationOf(document).slice(0, 64),
  };
}
