import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { GITBOOK_INTEGRATION_SCHEMAS } from "./gitbook-schemas.js";

/**
 * GitBook's integration schemas (vendored in gitbook-schemas.ts), compiled once per process, and
 * their errors in words: `path: rule`, the path written as in JavaScript (`element.children[0].type`).
 *
 * GitBook's OpenAPI document is JSON Schema 2020-12 (OpenAPI 3.1). Its `discriminator` is honoured
 * so a union of elements reports the problem of the element named by `type` rather than one per
 * alternative. `uri` is the only format the vendored schemas use; ajv-formats is no dependency of
 * this service, so it is checked here with URL.canParse, as publishing does.
 */

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode => !!value && typeof value === "object" && !Array.isArray(value);

/** Whether an inline alternative requires a `type` of one single value. */
function fixesType(alternative: unknown): boolean {
  if (!isNode(alternative) || !isNode(alternative.properties) || !Array.isArray(alternative.required)) return false;
  const tag = alternative.properties.type;
  return isNode(tag) && Array.isArray(tag.enum) && tag.enum.length === 1 && alternative.required.includes("type");
}

/**
 * A copy in which every `oneOf` of inline alternatives each fixed by a required `type` (a
 * configuration property: string, number, boolean or button) gets the discriminator GitBook's
 * ContentKit unions already declare, for the same focused errors.
 */
function withTypeDiscriminators(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withTypeDiscriminators);
  if (!isNode(node)) return node;
  const copy: SchemaNode = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withTypeDiscriminators(value)]));
  if (Array.isArray(copy.oneOf) && !copy.discriminator && copy.oneOf.every(fixesType)) copy.discriminator = { propertyName: "type" };
  return copy;
}

/**
 * GitBook's PlainObject (a component's props, an action's props and return value) declares no
 * `type`, so a string or a number matches it too, and its values' `oneOf` (PlainObject | string |
 * boolean | number | array) then refuses every string and number: no real component's props would
 * pass. It is read as GitBook means it, an object (test/platform.test.ts reads GitBook's document so too).
 */
function asMeant(schemas: Record<string, unknown>): Record<string, unknown> {
  return { ...schemas, PlainObject: { ...(schemas.PlainObject as SchemaNode), type: "object" } };
}

const DOCUMENT_ID = "gitbook-integration";
const ajv = new Ajv2020({ strict: false, discriminator: true, verbose: true });
ajv.addFormat("uri", (value: string) => URL.canParse(value));
ajv.addSchema(withTypeDiscriminators({ $id: DOCUMENT_ID, components: { schemas: asMeant(GITBOOK_INTEGRATION_SCHEMAS.components.schemas) } }) as SchemaNode);

export type SchemaName = keyof typeof GITBOOK_INTEGRATION_SCHEMAS.components.schemas;

/** The validator of one of GitBook's schemas (compile at module load: ajv compiles each once). */
export function validatorOf(name: SchemaName): ValidateFunction {
  return ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });
}

/** `a.b[0].c` for a JSON pointer (`/a/b/0/c`); numeric segments are written as indexes. */
function pathOf(pointer: string, prefix: string): string {
  let path = prefix;
  for (const raw of pointer.split("/").slice(1)) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment;
  }
  return path;
}

const VENDORED: Record<string, unknown> = GITBOOK_INTEGRATION_SCHEMAS.components.schemas;

/** The values of `tag` a discriminated `oneOf` admits, one per alternative (inline or referenced). */
function tagValues(parentSchema: unknown, tag: string): unknown[] {
  const alternatives: unknown[] = isNode(parentSchema) && Array.isArray(parentSchema.oneOf) ? parentSchema.oneOf : [];
  return alternatives.flatMap((alternative) => {
    const resolved = isNode(alternative) && typeof alternative.$ref === "string" ? VENDORED[alternative.$ref.split("/").pop() ?? ""] : alternative;
    const property = isNode(resolved) && isNode(resolved.properties) ? resolved.properties[tag] : undefined;
    return isNode(property) && Array.isArray(property.enum) ? (property.enum as unknown[]) : [];
  });
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** The rule of an enumeration: its values when they are few enough to read. */
function oneOfValues(values: unknown[]): string {
  return values.length > 0 && values.length <= 8
    ? `must be one of ${values.map((value) => JSON.stringify(value)).join(", ")}`
    : "must be equal to one of the allowed values";
}

/** One ajv error as a path and a rule. */
function describe(error: ErrorObject, prefix: string): { path: string; rule: string } {
  const path = pathOf(error.instancePath, prefix);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { path: join(path, String(params.missingProperty)), rule: "is required" };
    case "additionalProperties":
      return { path: join(path, String(params.additionalProperty)), rule: "is not allowed" };
    case "discriminator": {
      const tag = String(params.tag);
      const value = isNode(error.data) ? error.data[tag] : undefined;
      if (value === undefined) return { path: join(path, tag), rule: "is required" };
      return { path: join(path, tag), rule: params.error === "mapping" ? oneOfValues(tagValues(error.parentSchema, tag)) : "must be a string" };
    }
    case "type":
      return { path, rule: `must be ${String(params.type).split(",").map(article).join(" or ")}` };
    case "enum":
      return { path, rule: oneOfValues(params.allowedValues as unknown[]) };
    case "const":
      return { path, rule: `must be ${JSON.stringify(params.allowedValue)}` };
    case "maxLength":
      return { path, rule: `must be at most ${String(params.limit)} characters` };
    case "minLength":
      return { path, rule: `must be at least ${String(params.limit)} characters` };
    case "maxItems":
      return { path, rule: `must contain at most ${String(params.limit)} items` };
    case "maxProperties":
      return { path, rule: `must have at most ${String(params.limit)} properties` };
    case "uniqueItems":
      return { path, rule: "must not contain duplicates" };
    case "oneOf":
      return { path, rule: params.passingSchemas ? "matches more than one of the accepted shapes" : "does not match any of the accepted shapes" };
    case "anyOf":
      return { path, rule: "does not match any of the accepted shapes" };
    case "format":
      return { path, rule: params.format === "uri" ? "must be an absolute URL" : `must be a valid ${String(params.format)}` };
    default:
      return { path, rule: error.message ?? "is not valid" };
  }
}

const UNIONS = ["oneOf", "anyOf", "allOf", "if"];

const depth = (path: string) => path.split(/[.[]/).length;

/**
 * The failed validation's most useful problem as `path: rule`: the deepest one (a union that fails
 * also fails at its parent, and the alternatives that did not fit fail shallower), the first of
 * equals. `prefix` starts every path; `whole` names the value itself when the problem is at its root.
 */
export function firstProblem(errors: readonly ErrorObject[] | null | undefined, prefix: string, whole: string): string {
  const all = errors ?? [];
  const unions = all.filter((error) => UNIONS.includes(error.keyword));
  // A union's own error only when nothing inside it says more (a value matching two alternatives).
  const described = (unions.length === all.length ? unions : all.filter((error) => !UNIONS.includes(error.keyword))).map((error) => describe(error, prefix));
  let best = described[0];
  for (const candidate of described) if (best && depth(candidate.path) > depth(best.path)) best = candidate;
  return best ? `${best.path || whole}: ${best.rule}` : `${whole}: is not valid`;
}
