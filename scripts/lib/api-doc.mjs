// docs/api.md, GitBook API coverage: every operation of GitBook's OpenAPI document in the resources
// Imprint covers, with its status, built from the gateway's route table, that document and the
// hand-kept docs/api-differences.json. `npm run docs:api` writes it; gateway/test/api-doc.test.ts
// fails when the committed file differs from what this builds.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const API_DOC_FILE = join(ROOT, "docs", "api.md");
export const DIFFERENCES_FILE = join(ROOT, "docs", "api-differences.json");
export const STALE_MESSAGE = "docs/api.md is stale: run npm run docs:api";

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
/** Meta tags GitBook adds beside an operation's resource tag. */
const META_TAGS = new Set(["critical"]);
/** GitBook tags listCommentRepliesInSpace `space-comment`, a tag it never declares; its siblings are `space-comments`. */
const TAG_ALIASES = new Map([["space-comment", "space-comments"]]);

/**
 * @typedef {{ method: string, path: string, authenticated: boolean }} RouteEntry
 * @typedef {{ resources: string[], different: Record<string, string>, leftOut: Record<string, string>, notes: Record<string, string>, extensions: Record<string, string>, acrossOperations?: string[] }} Differences
 * @typedef {{ operationId: string, method: string, template: string, tag: string, deprecated: boolean }} Operation
 * @typedef {{ supported: number, different: number, leftOut: number, notYet: number, total: number }} Counts
 */

/** GitBook's OpenAPI document, its package version and the hand-kept differences, from disk. */
export function loadApiDocInputs() {
  const require = createRequire(import.meta.url);
  const specFile = require.resolve("@gitbook/api/spec/openapi.json");
  const openapi = JSON.parse(readFileSync(specFile, "utf8"));
  // The package does not export its package.json; it sits one folder above the spec.
  const gitbookVersion = JSON.parse(readFileSync(join(dirname(specFile), "..", "package.json"), "utf8")).version;
  /** @type {Differences} */
  const differences = JSON.parse(readFileSync(DIFFERENCES_FILE, "utf8"));
  return { openapi, gitbookVersion, differences };
}

/** `/orgs/{organizationId}` and `/v1/orgs/:organizationId` both become `/orgs/{}`: matching ignores parameter names. */
const gitbookShape = (template) => template.replace(/\{[^}/]+\}/g, "{}");
const imprintShape = (path) => path.replace(/^\/v1(?=\/)/, "").replace(/[:*][A-Za-z0-9_]+/g, "{}");
const routeKey = (route) => `${route.method} ${route.path}`;

/**
 * Every operation of the document with the resource (tag) it is listed under: its first tag that
 * is not a meta tag; an untagged operation takes the tag of the operation on the longest path that
 * prefixes its own.
 * @returns {Operation[]}
 */
function listOperations(openapi) {
  const operations = [];
  for (const [template, item] of Object.entries(openapi.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const tag = (operation.tags ?? []).find((t) => !META_TAGS.has(t));
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        template,
        tag: tag && (TAG_ALIASES.get(tag) ?? tag),
        deprecated: operation.deprecated === true,
      });
    }
  }
  for (const operation of operations.filter((o) => !o.tag)) {
    const parent = operations.filter((o) => o.tag && operation.template.startsWith(`${o.template}/`)).sort((a, b) => b.template.length - a.template.length)[0];
    operation.tag = parent?.tag ?? "untagged";
  }
  return operations;
}

/** GitHub's heading anchor for a plain title. */
const anchor = (title) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");
const cell = (text) => text.replace(/\|/g, "\\|");
const countsRow = (c) => `${c.supported} | ${c.different} | ${c.leftOut} | ${c.notYet} | ${c.total}`;

/**
 * Builds docs/api.md. Throws, listing every problem, when the differences name an operation that
 * does not exist, a behaviour of one that is not routed, a reason for leaving out one that is
 * routed, or when a route with no GitBook
 * operation has no line saying what it is.
 * @param {{ routes: RouteEntry[], openapi: any, gitbookVersion: string, differences: Differences }} input
 * @returns {{ markdown: string, counts: Counts }}
 */
export function buildApiDoc({ routes, openapi, gitbookVersion, differences }) {
  const operations = listOperations(openapi);
  const byShape = new Map(operations.map((o) => [`${o.method} ${gitbookShape(o.template)}`, o]));
  const byId = new Map(operations.map((o) => [o.operationId, o]));

  /** @type {Map<string, RouteEntry>} operationId → the route serving it */
  const routed = new Map();
  /** @type {RouteEntry[]} */
  const extensions = [];
  for (const route of routes) {
    const operation = route.path.startsWith("/v1/") ? byShape.get(`${route.method} ${imprintShape(route.path)}`) : undefined;
    if (operation) routed.set(operation.operationId, route);
    else extensions.push(route);
  }

  const problems = [];
  for (const id of Object.keys(differences.different)) {
    if (!byId.has(id)) problems.push(`different: ${id} is not an operation of GitBook's OpenAPI ${gitbookVersion}`);
    else if (!routed.has(id)) problems.push(`different: ${id} is not routed by the gateway (a difference needs a route)`);
  }
  for (const id of Object.keys(differences.leftOut)) {
    if (!byId.has(id)) problems.push(`leftOut: ${id} is not an operation of GitBook's OpenAPI ${gitbookVersion}`);
    else if (routed.has(id)) problems.push(`leftOut: ${id} is routed by the gateway (left out means not served)`);
  }
  for (const id of Object.keys(differences.notes)) {
    if (!byId.has(id)) problems.push(`notes: ${id} is not an operation of GitBook's OpenAPI ${gitbookVersion}`);
    if (id in differences.different) problems.push(`notes: ${id} is also in different (one line per operation)`);
    if (id in differences.leftOut) problems.push(`notes: ${id} is also in leftOut (one line per operation)`);
  }
  const extensionKeys = new Set(extensions.map(routeKey));
  for (const key of Object.keys(differences.extensions)) {
    if (!extensionKeys.has(key)) problems.push(`extensions: "${key}" is not a gateway route without a GitBook operation`);
  }
  for (const key of extensionKeys) {
    if (!(key in differences.extensions)) problems.push(`extensions: route "${key}" matches no GitBook operation; add a line saying what it is`);
  }
  const tags = new Set(operations.map((o) => o.tag));
  for (const tag of differences.resources) {
    if (!tags.has(tag)) problems.push(`resources: ${tag} is not a tag of GitBook's OpenAPI ${gitbookVersion}`);
  }
  if (problems.length > 0) throw new Error(`${DIFFERENCES_FILE} does not fit the route table:\n  ${problems.join("\n  ")}`);

  // Resources in the document's order of declared tags, then any undeclared tag in order of use.
  const titles = new Map((openapi.tags ?? []).map((t) => [t.name, t["x-page-title"] ?? t.name]));
  const tagOrder = [...new Set([...titles.keys(), ...operations.map((o) => o.tag)])];
  const covered = new Set([...differences.resources, ...[...routed.keys()].map((id) => byId.get(id).tag)]);
  const resources = tagOrder
    .filter((tag) => covered.has(tag))
    .map((tag) => {
      const rows = operations
        .filter((o) => o.tag === tag)
        .map((o) => {
          const status = !routed.has(o.operationId)
            ? o.operationId in differences.leftOut
              ? "left out"
              : "not yet"
            : o.operationId in differences.different
              ? "different"
              : "supported";
          const note = [
            differences.different[o.operationId] ?? differences.leftOut[o.operationId] ?? differences.notes[o.operationId],
            o.deprecated ? "deprecated by GitBook" : undefined,
          ]
            .filter(Boolean)
            .join("; ");
          return { ...o, status, note };
        });
      return { tag, title: titles.get(tag) ?? tag, rows, counts: tally(rows) };
    });
  const counts = tally(resources.flatMap((r) => r.rows));
  const uncovered = tagOrder.filter((tag) => !covered.has(tag));
  const uncoveredOperations = operations.filter((o) => !covered.has(o.tag)).length;

  const lines = [
    "<!-- Generated by scripts/api-doc.mjs (npm run docs:api): do not edit. -->",
    "# GitBook API coverage",
    "",
    `Generated by \`npm run docs:api\` (\`scripts/api-doc.mjs\`) from the gateway's route table, GitBook's OpenAPI document (\`@gitbook/api\` ${gitbookVersion}) and the hand-kept [api-differences.json](api-differences.json): do not edit. \`gateway/test/api-doc.test.ts\` fails when this file is stale.`,
    "",
    "Every operation of GitBook's OpenAPI document in the resources (OpenAPI tags) Imprint covers: each resource with at least one route, and each one Imprint's interface specification describes (`resources` in api-differences.json). Paths are as called on Imprint: GitBook's with the `/v1` prefix. A route serves an operation when method and path match, parameter names aside. Status:",
    "",
    "- **supported**: served as GitBook documents it (a note names inputs that are accepted but change nothing);",
    "- **different**: served, deliberately different from GitBook; the note says how and why;",
    "- **left out**: deliberately not served; the note says why;",
    "- **not yet**: not served.",
    "",
    "| resource | tag | supported | different | left out | not yet | total |",
    "|---|---|---:|---:|---:|---:|---:|",
    ...resources.map((r) => `| [${r.title}](#${anchor(r.title)}) | \`${r.tag}\` | ${countsRow(r.counts)} |`),
    `| **all ${resources.length} resources** | | **${counts.supported}** | **${counts.different}** | **${counts.leftOut}** | **${counts.notYet}** | **${counts.total}** |`,
    "",
    `Of the ${counts.total} operations, ${counts.leftOut} are left out deliberately (each with its reason below) and ${counts.notYet} not served yet.`,
    "",
    `Not covered: GitBook's other ${uncovered.length} resources (${uncoveredOperations} operations): ${uncovered.map((t) => `\`${t}\``).join(", ")}.`,
    "",
    `[Imprint extensions](#imprint-extensions): ${extensions.length} routes with no operation in GitBook's OpenAPI ${gitbookVersion}.`,
  ];
  // Behaviour of every operation (headers GitBook does not document), one paragraph each.
  if (differences.acrossOperations?.length) {
    lines.push(
      "",
      "## Across all operations",
      "",
      "Deliberate differences and extensions that apply to every operation (or every write) rather than to one:",
      "",
    );
    for (const paragraph of differences.acrossOperations) lines.push(`- ${paragraph}`);
  }
  for (const resource of resources) {
    lines.push(
      "",
      `## ${resource.title}`,
      "",
      `\`${resource.tag}\`: ${resource.counts.supported} supported, ${resource.counts.different} different, ${resource.counts.leftOut} left out, ${resource.counts.notYet} not yet.`,
      "",
    );
    lines.push("| operation | method | path | status | note |", "|---|---|---|---|---|");
    for (const row of resource.rows) lines.push(`| \`${row.operationId}\` | ${row.method} | \`/v1${row.template}\` | ${row.status} | ${cell(row.note)} |`);
  }
  lines.push(
    "",
    "## Imprint extensions",
    "",
    `Routes of the gateway that match no operation of GitBook's OpenAPI ${gitbookVersion} (paths in the router's syntax: \`:name\` is one segment, \`*name\` the rest of the path).`,
    "",
    "| method | path | token | note |",
    "|---|---|---|---|",
    ...extensions.map((r) => `| ${r.method} | \`${r.path}\` | ${r.authenticated ? "bearer" : "none"} | ${cell(differences.extensions[routeKey(r)])} |`),
    "",
  );
  return { markdown: lines.join("\n"), counts };
}

/** @returns {Counts} */
function tally(rows) {
  const count = (status) => rows.filter((r) => r.status === status).length;
  return { supported: count("supported"), different: count("different"), leftOut: count("left out"), notYet: count("not yet"), total: rows.length };
}
