import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/**
 * Checks gateway responses against GitBook's published OpenAPI document (the wire contract Imprint
 * promises): the operation is found by method + path, and the body must match the schema declared
 * for the response status. Error responses the document does not list per operation are checked
 * against GitBook's shared error shape `{"error": {"code": <status>, "message"}}`.
 */
type OpenApiDocument = {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
  components: { responses: Record<string, unknown> };
};

const require = createRequire(import.meta.url);
const specPath = require.resolve("@gitbook/api/spec/openapi.json");
// CommonJS plugin; loaded through require so its default export needs no interop guessing.
const addFormats = require("ajv-formats") as (ajv: Ajv2020) => Ajv2020;
const spec = JSON.parse(readFileSync(specPath, "utf8")) as OpenApiDocument;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
// Formats GitBook uses that are annotations rather than checks.
for (const format of ["emoji", "icon", "int32", "byte"]) ajv.addFormat(format, true);
// GitBook's `page_edited` attributes are `oneOf` three object schemas that constrain only shared
// properties alike and leave every other property open, so any object that matches one matches
// all three and `oneOf` can never hold: they are checked as `anyOf` (each alternative still applies).
const pageEdited = (spec.components as unknown as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas
  .RevisionSemanticChangePageEdited!.properties.attributes!;
if (pageEdited.oneOf) {
  pageEdited.anyOf = pageEdited.oneOf;
  delete pageEdited.oneOf;
}
ajv.addSchema(spec, "openapi");

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
      properties: { code: { type: "integer" }, message: { type: "string", minLength: 1 } },
    },
  },
};
const validateError = ajv.compile(ERROR_SCHEMA);

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

interface Operation {
  template: string;
  method: string;
  operationId: string;
  responses: Record<string, unknown>;
}

const templates = Object.keys(spec.paths).map((template) => ({
  template,
  params: (template.match(/\{[^}]+\}/g) ?? []).length,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
}));

/** The OpenAPI operation for a request to the gateway (paths in the document lack the /v1 prefix). */
export function findOperation(method: string, url: string): Operation | undefined {
  // The API's root (`/v1/`, getApiInformation) is GitBook's "/".
  const path = new URL(url, "http://x").pathname.replace(/^\/v1(?=\/)/, "").replace(/\/$/, "") || "/";
  const candidates = templates.filter((t) => t.pattern.test(path)).sort((a, b) => a.params - b.params);
  for (const candidate of candidates) {
    const entry = spec.paths[candidate.template]?.[method.toLowerCase()];
    if (entry && HTTP_METHODS.has(method.toLowerCase())) {
      return { template: candidate.template, method: method.toUpperCase(), operationId: entry.operationId ?? "", responses: entry.responses ?? {} };
    }
  }
  return undefined;
}

const validators = new Map<string, ValidateFunction>();

function pointer(...segments: string[]): string {
  return "#/" + segments.map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/** Validator for one operation's response body at `status`, or undefined when it declares none. */
function responseValidator(operation: Operation, status: string): ValidateFunction | undefined | "no-body" {
  let response = operation.responses[status] as { $ref?: string; content?: Record<string, unknown> } | undefined;
  let base = pointer("paths", operation.template, operation.method.toLowerCase(), "responses", status);
  if (response?.$ref) {
    const name = response.$ref.split("/").pop()!;
    response = spec.components.responses[name] as typeof response;
    base = pointer("components", "responses", name);
  }
  if (!response) return undefined;
  if (!response.content?.["application/json"]) return "no-body";
  const key = `${base}/content/application~1json/schema`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi${key}` });
    validators.set(key, validate);
  }
  return validate;
}

export interface ContractOptions {
  /**
   * For requests with no GitBook operation (Imprint's own probes, unknown routes): the reason.
   * Success bodies are then not checked against the document; error bodies still are.
   */
  notInOpenApi?: string;
}

/** Throws (failing the test) when a response breaks the contract. */
export function assertContract(
  request: { method: string; url: string },
  response: { status: number; contentType: string | null; text: string },
  options: ContractOptions = {},
): void {
  const where = `${request.method} ${new URL(request.url).pathname} → ${response.status}`;
  const fail = (problem: string): never => {
    throw new Error(`contract violation for ${where}: ${problem}\nbody: ${response.text.slice(0, 2000)}`);
  };
  const body = (): unknown => {
    if (!response.contentType?.startsWith("application/json")) fail(`content-type is ${response.contentType}, expected application/json`);
    try {
      return JSON.parse(response.text) as unknown;
    } catch {
      return fail("body is not JSON");
    }
  };

  if (response.status >= 400) {
    const parsed = body() as { error?: { code?: unknown } };
    if (!validateError(parsed)) fail(`error body: ${ajv.errorsText(validateError.errors)}`);
    if (parsed.error?.code !== response.status) fail(`error.code ${String(parsed.error?.code)} differs from the status`);
    const operation = findOperation(request.method, request.url);
    const declared = operation && responseValidator(operation, String(response.status));
    if (declared && declared !== "no-body" && !declared(parsed)) fail(ajv.errorsText(declared.errors));
    return;
  }

  const operation = findOperation(request.method, request.url);
  if (!operation) {
    if (!options.notInOpenApi) fail("no operation in GitBook's OpenAPI matches; pass notInOpenApi with the reason");
    return;
  }
  const validate = responseValidator(operation, String(response.status));
  if (validate === undefined) fail(`${operation.operationId} does not declare status ${response.status}`);
  if (validate === "no-body") {
    if (response.text !== "") fail(`${operation.operationId} declares no body for ${response.status}`);
    return;
  }
  const parsed = body();
  if (!validate!(parsed)) fail(`${operation.operationId}: ${ajv.errorsText(validate!.errors, { separator: "\n  " })}`);
}
