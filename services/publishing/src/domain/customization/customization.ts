import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { AppError } from "@imprint/runtime";
import { GITBOOK_CUSTOMIZATION_SCHEMAS } from "./gitbook-schemas.js";

/**
 * A site's customization (GitBook's SiteCustomizationSettings: title, styling, header and footer
 * links, themes, pagination…), stored whole as GitBook defines it, and a site-space's override of
 * it (a partial customization merged over the site's). Both are checked against GitBook's own
 * schemas (vendored in gitbook-schemas.ts), closed: a key the schema does not name is refused,
 * with its path.
 */
export type Customization = Record<string, unknown>;

/** Bound of a stored customization or override, as JSON text. */
export const CUSTOMIZATION_MAX_BYTES = 64 * 1024;

type SchemaNode = Record<string, unknown>;

/** A deep copy of a schema in which every object with declared properties admits no other key. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== "object") return node;
  const copy: SchemaNode = {};
  for (const [key, value] of Object.entries(node))
    copy[key] = key === "properties" ? Object.fromEntries(Object.entries(value as SchemaNode).map(([name, schema]) => [name, closed(schema)])) : closed(value);
  if (copy.type === "object" && copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

const DOCUMENT_ID = "gitbook-customization";
const document = closed({ $id: DOCUMENT_ID, components: GITBOOK_CUSTOMIZATION_SCHEMAS.components }) as SchemaNode;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// URL is GitBook's only checked format; emoji is an annotation.
ajv.addFormat("uri", (value: string) => URL.canParse(value));
ajv.addFormat("emoji", true);
ajv.addSchema(document);
const validators = {
  site: ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/SiteCustomizationSettingsInput` }),
  override: ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/SiteSpaceCustomizationOverride` }),
};
const OVERRIDE_SCHEMA = GITBOOK_CUSTOMIZATION_SCHEMAS.components.schemas.SiteSpaceCustomizationOverride as unknown as SchemaNode;

/** "styling.primaryColor.light" for "/styling/primaryColor/light"; "" for the root. */
function dotted(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** One schema error as `path: problem`, in words a caller can act on. */
function describe(error: ErrorObject): { path: string; problem: string; unknownKey: boolean } {
  const path = dotted(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      // Inside one alternative of a oneOf, a key may be unknown only to that alternative.
      return {
        path: join(path, String(params.additionalProperty)),
        problem: "is not a customization setting",
        unknownKey: !error.schemaPath.includes("/oneOf/"),
      };
    case "required":
      return { path: join(path, String(params.missingProperty)), problem: "is required", unknownKey: false };
    case "enum":
      return { path, problem: `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`, unknownKey: false };
    case "pattern":
      return {
        path,
        problem: params.pattern === "^#(?:[0-9a-fA-F]{3}){1,2}$" ? "must be a hex colour such as #346DDB" : `must match ${String(params.pattern)}`,
        unknownKey: false,
      };
    case "format":
      return { path, problem: params.format === "uri" ? "must be an absolute URL" : `must be a valid ${String(params.format)}`, unknownKey: false };
    default:
      return { path, problem: error.message ?? "is not valid", unknownKey: false };
  }
}

/**
 * The most useful of a failed validation's errors: an unknown key first (the caller's likeliest
 * typo), else the deepest problem (alternatives of a `oneOf` also fail at their parent).
 */
function firstProblem(validate: ValidateFunction): string {
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== "oneOf" && error.keyword !== "anyOf");
  const described = errors.map(describe);
  const best = described.find((error) => error.unknownKey) ??
    described.sort((a, b) => b.path.split(".").length - a.path.split(".").length)[0] ?? { path: "", problem: "is not a valid customization" };
  return `${best.path || "body"}: ${best.problem}`;
}

function check(validate: ValidateFunction, value: unknown): Customization {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw AppError.invalidArgument("body: must be a customization object");
  if (Buffer.byteLength(JSON.stringify(value)) > CUSTOMIZATION_MAX_BYTES)
    throw AppError.invalidArgument(`body: must be at most ${CUSTOMIZATION_MAX_BYTES / 1024} KiB of JSON`);
  if (!validate(value)) throw AppError.invalidArgument(firstProblem(validate));
  return value as Customization;
}

/** A whole site customization (GitBook's SiteCustomizationSettingsInput), refused naming the first problem's path. */
export function validateSiteCustomization(value: unknown): Customization {
  return check(validators.site, value);
}

/** A site-space override (the body of GitBook's overrideSiteSpaceCustomizationById): any part, `null` resets a setting. */
export function validateCustomizationOverride(value: unknown): Customization {
  return check(validators.override, value);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);

/** Whether the override schema declares this node as an object of separately overridable settings (merged key by key). */
const mergesByKey = (schema: SchemaNode | undefined): schema is SchemaNode & { properties: Record<string, SchemaNode> } =>
  !!schema && schema.type === "object" && isPlainObject(schema.properties);

/**
 * The stored override after a patch: a setting given replaces the stored one (objects of settings
 * merge key by key), `null` removes it so the site's applies again; emptied objects disappear.
 */
export function patchOverride(stored: Customization | null, patch: Customization, schema: SchemaNode = OVERRIDE_SCHEMA): Customization {
  const result: Customization = { ...(stored ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    const child = (schema.properties as Record<string, SchemaNode> | undefined)?.[key];
    if (value === null) delete result[key];
    else if (mergesByKey(child) && isPlainObject(value)) {
      const merged = patchOverride(isPlainObject(result[key]) ? result[key] : null, value, child);
      if (Object.keys(merged).length === 0) delete result[key];
      else result[key] = merged;
    } else result[key] = value;
  }
  return result;
}

/** The customization a site-space shows: the site's, with the site-space's override applied setting by setting. */
export function effectiveCustomization(site: Customization, override: Customization | null, schema: SchemaNode = OVERRIDE_SCHEMA): Customization {
  if (!override) return site;
  const result: Customization = { ...site };
  for (const [key, value] of Object.entries(override)) {
    const child = (schema.properties as Record<string, SchemaNode> | undefined)?.[key];
    result[key] = mergesByKey(child) && isPlainObject(value) && isPlainObject(site[key]) ? effectiveCustomization(site[key], value, child) : value;
  }
  return result;
}

const themed = (color: string) => ({ light: color, dark: color });

/**
 * A new site's customization, until an admin sets one: GitBook's defaults for every required
 * setting, without what Imprint does not do (no "Powered by" trademark, no tracking cookie, no AI
 * assistant); the page menu offers the actions the reader serves: markdown, MCP, and the edit link
 * of a Git-synced space.
 */
export function defaultCustomization(): Customization {
  return {
    styling: {
      theme: "clean",
      primaryColor: themed("#346DDB"),
      infoColor: themed("#787878"),
      successColor: themed("#00C950"),
      warningColor: themed("#FE9A00"),
      dangerColor: themed("#FB2C36"),
      corners: "rounded",
      depth: "subtle",
      links: "default",
      font: "Inter",
      monospaceFont: "IBMPlexMono",
      codeTheme: { default: { light: "default-light", dark: "default-dark" }, openapi: { light: "default-light", dark: "default-dark" } },
      background: "plain",
      icons: "regular",
      sidebar: { background: "default", list: "default" },
      search: "subtle",
    },
    internationalization: { locale: "en" },
    favicon: {},
    header: { preset: "default", links: [] },
    footer: { groups: [] },
    themes: { default: "system", toggeable: true },
    feedback: { enabled: false },
    ai: { mode: "none" },
    advancedCustomization: { enabled: true },
    trademark: { enabled: false },
    externalLinks: { target: "self" },
    pagination: { enabled: true },
    pageActions: { items: ["markdown", "mcp", "git"] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: false },
  };
}
