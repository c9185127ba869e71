import { randomBytes } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";

/** GitBook's value sets (IntegrationVisibility, IntegrationTarget, IntegrationScope, IntegrationCategory, runtime). */
export const VISIBILITIES = ["public", "private", "unlisted"] as const;
export const TARGETS = ["all", "site", "space", "organization"] as const;
export const RUNTIMES = ["v1", "v2"] as const;
export const CATEGORIES = ["analytics", "collaboration", "content", "marketing", "visitor-auth", "other"] as const;
export const SCOPES = [
  "space:content:read",
  "space:content:write",
  "space:metadata:read",
  "space:metadata:write",
  "space:git:sync",
  "page:feedback:read",
  "site:metadata:read",
  "site:views:read",
  "site:script:inject",
  "site:script:cookies",
  "site:visitor:auth",
  "site:visitor:claims",
  "site:adaptive:read",
  "site:adaptive:write",
  "conversations:ingest",
  "openapi:read",
  "openapi:write",
] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export type Target = (typeof TARGETS)[number];
export type Scope = (typeof SCOPES)[number];

/** GitBook's limits (PublishIntegration and the schemas it references). */
export const LIMITS = {
  name: 100,
  titleMin: 2,
  titleMax: 30,
  description: 100,
  summary: 2048,
  previewImages: 3,
  externalLinks: 5,
  secrets: 20,
  secretValueBytes: 8 * 1024,
  blocks: 50,
  contentSources: 50,
  contentSecurityPolicy: 4096,
  /** A script is one bundled module; 5 MiB leaves room for large bundles while bounding every sandbox load. */
  scriptBytes: 5 * 1024 * 1024,
} as const;

/** GitBook's `integrationName` (its OpenAPI path parameter): at most 100 of these characters. */
const NAME_PATTERN = /^[a-zA-Z0-9-_.]+$/;

/**
 * Whether `name` can name an integration: GitBook's pattern and length, except names that pattern
 * admits but that cannot be one here: dot segments (`.`, `..`), which every URL holding the name
 * resolves away (`/v1/integrations/../installations`), and names every JavaScript object already
 * has (`__proto__`, `constructor`, `toString`, `prototype`, …), which would alias an integration
 * wherever names key an object.
 */
export function isIntegrationName(name: string): boolean {
  return name.length > 0 && name.length <= LIMITS.name && NAME_PATTERN.test(name) && !/^\.+$/.test(name) && !(name in Object.prototype) && name !== "prototype";
}

/**
 * A published integration: what it declares (GitBook's fields), its script, its encrypted secrets
 * and development mode. `version` counts publications. Deleting it (unpublishing) removes it with
 * its installations, events and images.
 */
export const IntegrationSchema = defineEntity({
  name: "Integration",
  tableName: "integrations",
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(LIMITS.name).unique(),
    ownerOrganizationId: p.uuid().index(),
    version: p.integer(),
    runtime: p.string().length(8),
    title: p.string().length(LIMITS.titleMax),
    description: p.string().length(LIMITS.description),
    summary: p.text().nullable(),
    visibility: p.string().length(16),
    target: p.string().length(16),
    scopes: p.json<string[]>(),
    categories: p.json<string[]>(),
    blocks: p.json<unknown[]>(),
    contentSources: p.json<unknown[]>(),
    externalLinks: p.json<unknown[]>(),
    /** Declared configurations {account, space, site}; `{}` when none. */
    configurations: p.json<Record<string, unknown>>(),
    /** Read only to run it (ScriptTexts keeps it by version), not with every lookup of the integration. */
    script: p.text().lazy(),
    /** The secrets map as JSON, encrypted (AES-256-GCM: iv ‖ tag ‖ ciphertext); null when none. */
    secretsCiphertext: p.blob().nullable(),
    secretNames: p.json<string[]>(),
    contentSecurityPolicy: p.text().nullable(),
    iconAssetId: p.uuid().nullable(),
    previewAssetIds: p.json<string[]>(),
    /** Signs what Imprint posts for this integration (environment.signingSecrets.integration). */
    signingSecret: p.string().length(64),
    devTunnelUrl: p.text().nullable(),
    devAll: p.boolean().default(false),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ properties: ["visibility", "name"], name: "integrations_visibility_name_index" }],
});
export class Integration extends IntegrationSchema.class {
  /** Whether blocks, content sources or scopes make it listed under a filter. */
  hasScope(scope: string): boolean {
    return this.scopes.includes(scope);
  }

  /** Where it may be installed: the organization level always; spaces and sites as its target allows. */
  allowsTarget(kind: "space" | "site"): boolean {
    return this.target === "all" || this.target === kind;
  }

  /** The secrets' names and the development tunnel are the owner's; so is a private integration. */
  isVisibleTo(memberOfOwner: boolean): boolean {
    return memberOfOwner || this.visibility !== "private";
  }

  /** A script call goes to the developer's tunnel: development mode on, and the organization is the owner's unless `all`. */
  tunnelFor(organizationId: string | null): string | null {
    if (!this.devTunnelUrl) return null;
    if (this.devAll || organizationId === null || organizationId === this.ownerOrganizationId) return this.devTunnelUrl;
    return null;
  }
}
IntegrationSchema.setClass(Integration);

/** A new signing secret: 32 random bytes, hex. */
export function newSigningSecret(): string {
  return randomBytes(32).toString("hex");
}

export function checkName(name: string): string {
  if (!isIntegrationName(name)) {
    throw AppError.invalidArgument(
      `integrationName: must be 1 to ${LIMITS.name} letters, digits, -, _ or ., not only dots, and no name every JavaScript object has (such as __proto__ or constructor)`,
    );
  }
  return name;
}

function characterCount(text: string): number {
  return [...text].length;
}

function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw AppError.invalidArgument(`${field}: must be one of ${allowed.join(", ")}`);
  return value as T;
}

export interface Declaration {
  runtime: string;
  title: string;
  description: string;
  summary: string | null;
  visibility: Visibility;
  target: Target;
  scopes: string[];
  categories: string[];
  contentSecurityPolicy: string | null;
}

/** Checks what a publication declares against GitBook's limits; answers it normalized. */
export function checkDeclaration(input: {
  runtime: string;
  title: string;
  description: string;
  summary: string | null;
  visibility: string;
  target: string;
  scopes: string[];
  categories: string[];
  contentSecurityPolicy: string | null;
}): Declaration {
  const titleLength = characterCount(input.title);
  if (titleLength < LIMITS.titleMin || titleLength > LIMITS.titleMax)
    throw AppError.invalidArgument(`title: must be ${LIMITS.titleMin} to ${LIMITS.titleMax} characters`);
  if (characterCount(input.description) > LIMITS.description) throw AppError.invalidArgument(`description: must be at most ${LIMITS.description} characters`);
  if (input.summary !== null && characterCount(input.summary) > LIMITS.summary)
    throw AppError.invalidArgument(`summary: must be at most ${LIMITS.summary} characters`);
  input.scopes.forEach((scope, index) => oneOf(`scopes[${index}]`, scope, SCOPES));
  input.categories.forEach((category, index) => oneOf(`categories[${index}]`, category, CATEGORIES));
  if (input.contentSecurityPolicy !== null) {
    if (input.contentSecurityPolicy.length > LIMITS.contentSecurityPolicy)
      throw AppError.invalidArgument(`contentSecurityPolicy: must be at most ${LIMITS.contentSecurityPolicy} characters`);
    // It becomes a response header: no line breaks or other control characters.
    if ([...input.contentSecurityPolicy].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f))
      throw AppError.invalidArgument("contentSecurityPolicy: must not contain control characters");
  }
  return {
    runtime: oneOf("runtime", input.runtime || "v1", RUNTIMES),
    title: input.title,
    description: input.description,
    summary: input.summary,
    visibility: oneOf("visibility", input.visibility || "private", VISIBILITIES),
    target: oneOf("target", input.target || "all", TARGETS),
    scopes: [...new Set(input.scopes)],
    categories: [...new Set(input.categories)],
    contentSecurityPolicy: input.contentSecurityPolicy,
  };
}

/** Checks a script's size; its behaviour is the sandbox's business. */
export function checkScript(script: string): string {
  if (script.length === 0) throw AppError.invalidArgument("script: must not be empty");
  if (Buffer.byteLength(script) > LIMITS.scriptBytes) throw AppError.invalidArgument(`script: must be at most ${LIMITS.scriptBytes} bytes`);
  return script;
}

/** Checks secrets: at most 20, names like environment variables, bounded values. */
export function checkSecrets(secrets: Record<string, string>): Record<string, string> {
  const names = Object.keys(secrets);
  if (names.length > LIMITS.secrets) throw AppError.invalidArgument(`secrets: must have at most ${LIMITS.secrets} entries`);
  for (const name of names) {
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name))
      throw AppError.invalidArgument(`secrets.${name.slice(0, 100)}: names must be 1 to 100 letters, digits, _, . or -`);
    if (Buffer.byteLength(secrets[name] ?? "") > LIMITS.secretValueBytes)
      throw AppError.invalidArgument(`secrets.${name}: must be at most ${LIMITS.secretValueBytes} bytes`);
  }
  return secrets;
}
