import { createHash } from "node:crypto";
import { TABLE_ALIGNMENT_STYLES } from "@imprint/document/html";
import { THEME_BOOT_SCRIPT } from "./assets.js";

/**
 * The Content-Security-Policy of the reader's pages. Nothing inline runs or styles a page but what
 * the reader itself wrote, allowed by hash (a nonce would not survive pages rendered once and kept):
 * the theme boot script, a site's primary colours, tables' alignment. Scripts come from the reader
 * (its one asset) and the site's integrations (each script's exact URL), plus what each integration
 * declares it needs (its `contentSecurityPolicy`, merged in as GitBook does). Images may come from
 * anywhere (documents and customizations link them); everything else from the reader only. Pages
 * may be framed by the reader and by https pages (GitBook's published pages embed alike): they hold
 * nothing a click could trigger against the visitor.
 */

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** Directives whose sources an integration's policy may add to (fetch directives: where things load from). */
const MERGED_DIRECTIVES = new Set([
  "default-src",
  "script-src",
  "style-src",
  "img-src",
  "connect-src",
  "font-src",
  "frame-src",
  "media-src",
  "worker-src",
  "child-src",
  "manifest-src",
]);

/** What a page loads besides the reader's own: its inline style (a site's colours) and its integrations' scripts. */
export interface PagePolicyInput {
  /** The `<style>` element's text the page carries, if any (render.ts: inlineStyleOf). */
  inlineStyle?: string | undefined;
  /** The integrations' script URLs the page loads. */
  scripts?: readonly string[];
  /** Those integrations' own policies (GitBook's IntegrationContentSecurityPolicy text). */
  integrationPolicies?: readonly string[];
  /** Origins the page's scripts call besides the reader (the APIs its OpenAPI "Test it" forms send to). */
  connect?: readonly string[];
  /**
   * The page draws mermaid diagrams, whose SVG carries its own `<style>` and style attributes: its
   * styles may be inline (never its scripts); a hash would turn 'unsafe-inline' off, so none is listed.
   */
  diagrams?: boolean;
}

/** Sources an integration's policy names that are not added: none adds nothing, strict-dynamic takes away. */
const IGNORED_SOURCES = new Set(["'none'", "'strict-dynamic'"]);

type Directives = Map<string, string[]>;

function baseDirectives(input: PagePolicyInput): Directives {
  return new Map<string, string[]>([
    ["default-src", ["'self'"]],
    ["script-src", ["'self'", sha256(THEME_BOOT_SCRIPT), ...(input.scripts ?? []).map(scriptSource)]],
    ["style-src", input.diagrams ? ["'self'", "'unsafe-inline'"] : ["'self'", ...(input.inlineStyle ? [sha256(input.inlineStyle)] : [])]],
    ["style-src-attr", input.diagrams ? ["'unsafe-inline'"] : ["'unsafe-hashes'", ...Object.values(TABLE_ALIGNMENT_STYLES).map(sha256)]],
    ["img-src", ["*", "data:"]],
    ["connect-src", ["'self'", ...(input.connect ?? []).map(scriptSource)]],
    ["object-src", ["'none'"]],
    ["base-uri", ["'self'"]],
    ["form-action", ["'self'"]],
    ["frame-ancestors", ["'self'", "https:"]],
  ]);
}

/** A script URL as a source expression: characters that end a source, a directive or a policy escaped (paths match decoded). */
function scriptSource(url: string): string {
  return url.replace(/[;,\s]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/** Adds an integration's sources to the fetch directives (a directive the page leaves to default-src starts from its sources). */
function merge(directives: Directives, policy: string): void {
  for (const directive of policy.split(";")) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    const key = name?.toLowerCase();
    if (!key || !MERGED_DIRECTIVES.has(key)) continue;
    // 'strict-dynamic' would turn off the reader's own sources ('self', the scripts' URLs).
    const added = sources.filter((source) => source !== "" && !IGNORED_SOURCES.has(source.toLowerCase()) && !source.includes(","));
    if (added.length === 0) continue;
    const current = directives.get(key) ?? [...(directives.get("default-src") ?? [])];
    directives.set(key, [...new Set([...current, ...added])]);
  }
}

/** The page's Content-Security-Policy header. */
export function pagePolicy(input: PagePolicyInput = {}): string {
  const directives = baseDirectives(input);
  for (const policy of input.integrationPolicies ?? []) merge(directives, policy);
  return [...directives].map(([name, sources]) => `${name} ${sources.join(" ")}`).join("; ");
}
