import type * as Mdast from "mdast";
import { parse as parseYaml } from "yaml";
import { parseMarkdown } from "@imprint/document";
import { invalid } from "../editing/page-input.js";
import type { ContentPageFields } from "./changes.js";

/**
 * A page's markdown as Git Sync reads it: YAML front matter (`description`, `icon`, `emoji`,
 * `hidden`, `noIndex`, `noRobotsIndex`, and `title`) and a leading `# Heading` (the title) set
 * the page's fields and are not part of the body.
 */

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const STRING_FIELDS = ["title", "description", "icon", "emoji"] as const;
const BOOLEAN_FIELDS = ["hidden", "noIndex", "noRobotsIndex"] as const;

function frontMatterFields(yaml: string, field: string): ContentPageFields {
  let value: unknown;
  try {
    value = parseYaml(yaml);
  } catch {
    throw invalid(field, "its front matter is not valid YAML");
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(field, "its front matter must be a YAML mapping");
  const entries = value as Record<string, unknown>;
  const fields: ContentPageFields = {};
  for (const name of STRING_FIELDS) {
    const entry = entries[name];
    if (entry === undefined || entry === null) continue;
    if (typeof entry !== "string" && typeof entry !== "number") throw invalid(field, `front matter "${name}" must be a string`);
    fields[name] = String(entry);
  }
  for (const name of BOOLEAN_FIELDS) {
    const entry = entries[name];
    if (entry === undefined || entry === null) continue;
    if (typeof entry !== "boolean") throw invalid(field, `front matter "${name}" must be true or false`);
    fields[name] = entry;
  }
  return fields;
}

function plainText(node: Mdast.Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if ("alt" in node && typeof node.alt === "string") return node.alt;
  if ("children" in node) return node.children.map((child) => plainText(child)).join("");
  return "";
}

/** The fields the markdown sets and its body without front matter and leading heading. */
export function readPageMarkdown(markdown: string, field: string): { fields: ContentPageFields; body: string } {
  let fields: ContentPageFields = {};
  let body = markdown;
  const frontMatter = FRONT_MATTER.exec(body);
  if (frontMatter) {
    fields = frontMatterFields(frontMatter[1] ?? "", field);
    body = body.slice(frontMatter[0].length);
  }
  const first = parseMarkdown(body).children[0];
  if (first?.type === "heading" && first.depth === 1 && first.position?.end.offset !== undefined) {
    const title = plainText(first).trim();
    if (title !== "") fields = { title, ...fields };
    body = body
      .slice(first.position.end.offset)
      .replace(/^[ \t]*\r?\n/, "")
      .replace(/^(?:[ \t]*\r?\n)+/, "");
  }
  return { fields, body };
}
