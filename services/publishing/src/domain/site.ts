import { randomBytes } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type Clock } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const SITE_TYPES = ["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"] as const;
export type SiteType = (typeof SITE_TYPES)[number];
export const SITE_VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth"] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];
export const AGENTS_CONTEXTS = ["included", "excluded"] as const;
export type AgentsContext = (typeof AGENTS_CONTEXTS)[number];

export const TITLE_MIN = 2;
export const TITLE_MAX = 128;
export const BASENAME_MAX = 100;
export const HOSTNAME_MAX = 512;
export const PROXY_MAX = 512;
export const URL_MAX = 2048;
const VISITOR_AUTH_KEY_MAX = 64;
/** GitBook's SiteHostname pattern: at least three labels of lowercase letters, digits and inner hyphens. */
export const HOSTNAME_PATTERN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
/** GitBook's SiteProxyOrigin pattern: a host with a domain, then at least one path segment. */
export const PROXY_PATTERN = /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/;

/**
 * A site: how an organization publishes spaces to readers. It starts unpublished; publishing and
 * unpublishing are the only ways `published` changes, and unpublishing keeps the configuration.
 * Its basename is unique in its organization, its hostname in the installation.
 */
export const SiteSchema = defineEntity({
  name: "Site",
  tableName: "sites",
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    type: p.enum(SITE_TYPES),
    title: p.string().length(TITLE_MAX),
    visibility: p.enum(SITE_VISIBILITIES),
    published: p.boolean().default(false),
    basename: p.string().length(BASENAME_MAX).nullable(),
    hostname: p.string().length(HOSTNAME_MAX).nullable(),
    proxy: p.string().length(PROXY_MAX).nullable(),
    adaptiveContentEnabled: p.boolean().default(false),
    agentsContext: p.enum(AGENTS_CONTEXTS),
    /** The default site-space at the root (null while the site has none; unused while it has sections). */
    defaultSiteSpaceId: p.uuid().nullable(),
    /** The default section (null while the site has none). */
    defaultSectionId: p.uuid().nullable(),
    /** The key signing visitor JWTs of its `visitor-auth` audience (HS256); replaced by regenerating it. */
    visitorAuthKey: p.string().length(VISITOR_AUTH_KEY_MAX),
    /** Where visitors without a valid token are sent to sign in. */
    visitorAuthFallbackUrl: p.string().length(URL_MAX).nullable(),
    /** Where visitors are sent to sign out of the custom backend. */
    visitorAuthLogoutUrl: p.string().length(URL_MAX).nullable(),
    /**
     * The adaptive-content schema of its visitors' claims (see adaptive-schema.ts) as JSON text,
     * kept as written (jsonb would reorder its claims); null until set.
     */
    adaptiveSchema: p.text().nullable(),
    adaptiveSchemaUpdatedAt: p.datetime().nullable(),
    /** Its customization (GitBook's SiteCustomizationSettings, see customization/) as JSON text; null until an admin sets one. */
    customization: p.text().nullable(),
    customizationUpdatedAt: p.datetime().nullable(),
    /**
     * Moves with every change to the site or anything it shows (its structure, its settings, the
     * spaces it publishes, as content's events report them): readers of its published view compare
     * it to know whether what they hold is still right.
     */
    version: p.integer().default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [
    { properties: ["organizationId", "basename"], name: "sites_organization_basename_unique" },
    { properties: ["hostname"], name: "sites_hostname_unique" },
  ],
  indexes: [{ properties: ["organizationId", "createdAt", "id"], name: "sites_organization_created_at_index" }],
});

/** The settings a site update may change (validated values). */
export interface SiteSettings {
  title?: string | undefined;
  visibility?: SiteVisibility | undefined;
  basename?: string | undefined;
  adaptiveContentEnabled?: boolean | undefined;
  agentsContext?: AgentsContext | undefined;
  /** Null removes it. */
  proxy?: string | null | undefined;
  /** Null removes it. */
  hostname?: string | null | undefined;
}

/** Changed fields of a site by REST name, each with its old and new value (what `site.updated` carries). */
export type SiteChanges = Record<string, { from: unknown; to: unknown }>;

const REST_NAMES: Record<keyof SiteSettings, string> = {
  title: "title",
  visibility: "visibility",
  basename: "basename",
  adaptiveContentEnabled: "adaptiveContent.enabled",
  agentsContext: "agentsContext",
  proxy: "proxy",
  hostname: "hostname",
};

export class Site extends SiteSchema.class {
  /** Applies the settings that differ; answers them by REST name with old and new values. */
  update(settings: SiteSettings, clock: Clock): SiteChanges {
    const changes: SiteChanges = {};
    const self = this as unknown as Record<string, unknown>;
    for (const key of Object.keys(REST_NAMES) as (keyof SiteSettings)[]) {
      const value = settings[key];
      if (value === undefined || value === self[key]) continue;
      changes[REST_NAMES[key]] = { from: self[key] ?? null, to: value };
      self[key] = value;
    }
    if (Object.keys(changes).length > 0) this.updatedAt = clock();
    return changes;
  }
}
SiteSchema.setClass(Site);

function oneOf<T extends string>(field: string, values: readonly T[], value: string): T {
  if (!(values as readonly string[]).includes(value)) throw AppError.invalidArgument(`${field}: must be one of ${values.join(", ")}`);
  return value as T;
}

export const validateType = (type: string): SiteType => oneOf("type", SITE_TYPES, type);
export const validateVisibility = (visibility: string): SiteVisibility => oneOf("visibility", SITE_VISIBILITIES, visibility);
export const validateAgentsContext = (context: string): AgentsContext => oneOf("agentsContext", AGENTS_CONTEXTS, context);

export function validateTitle(title: string): string {
  const length = characterCount(title);
  if (length < TITLE_MIN) throw AppError.invalidArgument(`title: must be at least ${TITLE_MIN} characters`);
  if (length > TITLE_MAX) throw AppError.invalidArgument(`title: must be at most ${TITLE_MAX} characters`);
  return title;
}

export function validateBasename(basename: string): string {
  const length = characterCount(basename);
  if (length < 1) throw AppError.invalidArgument("basename: must be at least 1 character");
  if (length > BASENAME_MAX) throw AppError.invalidArgument(`basename: must be at most ${BASENAME_MAX} characters`);
  return basename;
}

/** A proxy origin, or null (empty) to remove it. */
export function validateProxy(proxy: string): string | null {
  if (proxy === "") return null;
  if (characterCount(proxy) > PROXY_MAX) throw AppError.invalidArgument(`proxy: must be at most ${PROXY_MAX} characters`);
  if (!PROXY_PATTERN.test(proxy)) throw AppError.invalidArgument("proxy: must be a host and a path, e.g. example.com/docs");
  return proxy;
}

/** A custom hostname, or null (empty) to remove it. */
export function validateHostname(hostname: string): string | null {
  if (hostname === "") return null;
  if (hostname.length > HOSTNAME_MAX) throw AppError.invalidArgument(`hostname: must be at most ${HOSTNAME_MAX} characters`);
  if (!HOSTNAME_PATTERN.test(hostname))
    throw AppError.invalidArgument("hostname: must be a lowercase host name of at least three labels, e.g. docs.example.com");
  return hostname;
}

/** A new visitor-auth signing key: 32 random bytes, base64url (43 characters). */
export function newVisitorAuthKey(): string {
  return randomBytes(32).toString("base64url");
}

/** A visitor-auth URL (fallbackURL, logoutURL): absolute http(s), at most 2,048 characters; "" unsets it. */
export function validateAuthUrl(field: string, url: string): string | null {
  if (url === "") return null;
  if (url.length > URL_MAX) throw AppError.invalidArgument(`${field}: must be at most ${URL_MAX} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw AppError.invalidArgument(`${field}: must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw AppError.invalidArgument(`${field}: must be an absolute http(s) URL`);
  return url;
}
