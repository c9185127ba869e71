import { AppError } from "@imprint/runtime";

/**
 * The adaptive-content schema of a site: a draft-07 JSON Schema of the claims its visitors carry
 * (GitBook's SiteAdaptiveJSONSchema). The root is an object with `additionalProperties: false`
 * whose properties are claims; `unsigned` (optional) holds the unsigned claims. A claim is a
 * boolean, a string (optionally with an `enum`), a number, an array of one of these, or an object of
 * claims (`additionalProperties: false`); every claim has a `description`.
 */
export type AdaptiveSchema = Record<string, unknown>;

export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
export const UNSIGNED_DESCRIPTION = "Unsigned claims of the site visitor.";
/** Serialized size, nesting and claim-name bounds (not GitBook's: what one site's visitors may carry). */
export const ADAPTIVE_SCHEMA_MAX_BYTES = 65_536;
export const ADAPTIVE_SCHEMA_MAX_DEPTH = 8;
export const CLAIM_NAME_MAX = 64;
const FORBIDDEN_NAMES = new Set(["__proto__", "constructor", "prototype"]);

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);

function fail(path: string, rule: string): never {
  throw AppError.invalidArgument(`${path}: ${rule}`);
}

function onlyKeys(value: Record<string, Json>, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${path}.${key}`, `is not allowed here (allowed: ${allowed.join(", ")})`);
}

function description(value: Record<string, Json>, path: string): void {
  if (typeof value.description !== "string" || value.description.trim() === "") fail(`${path}.description`, "must be a non-empty string");
}

function closed(value: Record<string, Json>, path: string): void {
  if (value.additionalProperties !== false) fail(`${path}.additionalProperties`, "must be false");
}

function primitive(value: Record<string, Json>, path: string): void {
  switch (value.type) {
    case "boolean":
    case "number":
      onlyKeys(value, path, ["type", "description"]);
      break;
    case "string":
      onlyKeys(value, path, ["type", "description", "enum"]);
      if (value.enum !== undefined) {
        if (!Array.isArray(value.enum) || value.enum.length === 0) fail(`${path}.enum`, "must be a non-empty array of strings");
        value.enum.forEach((item, index) => {
          if (typeof item !== "string") fail(`${path}.enum[${index}]`, "must be a string");
        });
        if (new Set(value.enum).size !== value.enum.length) fail(`${path}.enum`, "must not repeat a value");
      }
      break;
    default:
      fail(`${path}.type`, "must be boolean, string or number");
  }
  description(value, path);
}

function claims(value: Json, path: string, depth: number): void {
  if (!isObject(value)) fail(path, "must be an object of claims");
  for (const [name, claim] of Object.entries(value)) {
    const claimPath = `${path}.${name}`;
    if (name === "" || name.length > CLAIM_NAME_MAX) fail(claimPath, `a claim name must be 1 to ${CLAIM_NAME_MAX} characters`);
    if (FORBIDDEN_NAMES.has(name)) fail(claimPath, "is not a usable claim name");
    checkClaim(claim, claimPath, depth);
  }
}

function checkClaim(claim: Json, path: string, depth: number): void {
  if (depth > ADAPTIVE_SCHEMA_MAX_DEPTH) fail(path, `claims nest at most ${ADAPTIVE_SCHEMA_MAX_DEPTH} levels deep`);
  if (!isObject(claim)) fail(path, "must be a claim schema (an object with type and description)");
  if (claim.type === "array") {
    onlyKeys(claim, path, ["type", "description", "items"]);
    description(claim, path);
    if (!isObject(claim.items)) fail(`${path}.items`, "must be a boolean, string or number schema");
    primitive(claim.items, `${path}.items`);
  } else if (claim.type === "object") {
    onlyKeys(claim, path, ["type", "description", "properties", "additionalProperties"]);
    description(claim, path);
    closed(claim, path);
    claims(claim.properties, `${path}.properties`, depth + 1);
  } else if (claim.type === "boolean" || claim.type === "string" || claim.type === "number") {
    primitive(claim, path);
  } else {
    fail(`${path}.type`, "must be boolean, string, number, array or object");
  }
}

/** Checks a site adaptive schema; the error names the JSON path of the first problem (from `jsonSchema`). */
export function validateAdaptiveSchema(schema: Json): AdaptiveSchema {
  const root = "jsonSchema";
  if (!isObject(schema)) fail(root, "must be an object");
  if (JSON.stringify(schema).length > ADAPTIVE_SCHEMA_MAX_BYTES) fail(root, `must be at most ${ADAPTIVE_SCHEMA_MAX_BYTES} characters as JSON`);
  onlyKeys(schema, root, ["$schema", "$id", "type", "properties", "additionalProperties"]);
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_07) fail(`${root}.$schema`, `must be ${DRAFT_07}`);
  if (schema.$id !== undefined && typeof schema.$id !== "string") fail(`${root}.$id`, "must be a string");
  if (schema.type !== "object") fail(`${root}.type`, "must be object");
  closed(schema, root);
  if (!isObject(schema.properties)) fail(`${root}.properties`, "must be an object of claims");
  const { unsigned, ...signed } = schema.properties;
  claims(signed, `${root}.properties`, 1);
  if (unsigned !== undefined) {
    const path = `${root}.properties.unsigned`;
    if (!isObject(unsigned)) fail(path, "must be an object schema of unsigned claims");
    onlyKeys(unsigned, path, ["type", "description", "properties", "additionalProperties"]);
    if (unsigned.type !== "object") fail(`${path}.type`, "must be object");
    if (unsigned.description !== UNSIGNED_DESCRIPTION) fail(`${path}.description`, `must be "${UNSIGNED_DESCRIPTION}"`);
    closed(unsigned, path);
    claims(unsigned.properties, `${path}.properties`, 2);
  }
  return schema;
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const member = (base: string, name: string) => (IDENTIFIER.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`);

/**
 * Conditions a writer can start from, derived from a (valid) schema: one per boolean claim (it is
 * true) and one per value of a string enum (the claim equals it, or an array claim includes it),
 * signed and unsigned claims alike, nested objects included, in the schema's order.
 */
export function templateConditions(schema: AdaptiveSchema | null): TemplateCondition[] {
  if (!schema) return [];
  const conditions: TemplateCondition[] = [];
  const walk = (properties: Record<string, Json>, base: string) => {
    for (const [name, claim] of Object.entries(properties)) {
      if (!isObject(claim)) continue;
      const path = member(base, name);
      const text = typeof claim.description === "string" ? claim.description : name;
      if (claim.type === "boolean") conditions.push({ description: text, condition: `${path} === true` });
      if (claim.type === "string" && Array.isArray(claim.enum)) {
        for (const value of claim.enum) conditions.push({ description: `${text}: ${String(value)}`, condition: `${path} === ${JSON.stringify(value)}` });
      }
      if (claim.type === "array" && isObject(claim.items) && claim.items.type === "string" && Array.isArray(claim.items.enum)) {
        for (const value of claim.items.enum)
          conditions.push({ description: `${text}: ${String(value)}`, condition: `${path}.includes(${JSON.stringify(value)})` });
      }
      if (claim.type === "object" && isObject(claim.properties)) walk(claim.properties, path);
    }
  };
  const properties = isObject(schema.properties) ? schema.properties : {};
  const { unsigned, ...signed } = properties;
  walk(signed, "visitor.claims");
  if (isObject(unsigned) && isObject(unsigned.properties)) walk(unsigned.properties, "visitor.claims.unsigned");
  return conditions;
}
