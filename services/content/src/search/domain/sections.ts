import GithubSlugger from "github-slugger";

/**
 * A page's body cut into sections at its headings: the opening section (the text before the first
 * heading; the page's title and description are indexed with it) and one section per heading
 * (heading-1 to heading-3, i.e. markdown #, ## and ### and deeper), each with its anchor.
 */
export interface PageSection {
  /** 0 for the opening section, then 1, 2, … in document order. */
  position: number;
  /** The heading's anchor (its id in the document); empty for the opening section. */
  anchor: string;
  /** The heading's text; empty for the opening section (results show the page title). */
  heading: string;
  /** Plain text of the section's blocks, one line per block. */
  text: string;
}

/**
 * Text indexed per page, at most: PostgreSQL refuses a text-search vector over 1 MB, and a page
 * of 200,000 characters (some 30,000 words) stays well under it. Text beyond is not searchable.
 */
export const MAX_INDEXED_PAGE_TEXT = 200_000;

type JsonNode = Record<string, unknown>;

const HEADING = /^heading-[1-3]$/;

function isNode(value: unknown): value is JsonNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Plain text of a document node: leaves' text, image alt texts, nested nodes and fragments. */
function nodeText(node: JsonNode, out: string[]): void {
  if (Array.isArray(node.leaves)) {
    for (const leaf of node.leaves) if (isNode(leaf) && typeof leaf.text === "string") out.push(leaf.text);
    return;
  }
  if (node.type === "inline-image" && isNode(node.data) && typeof node.data.alt === "string") out.push(node.data.alt);
  const children: unknown[] = [
    ...(Array.isArray(node.nodes) ? (node.nodes as unknown[]) : []),
    ...(Array.isArray(node.fragments) ? (node.fragments as unknown[]) : []),
  ];
  for (const child of children) {
    if (!isNode(child)) continue;
    nodeText(child, out);
    // Blocks (paragraphs, list items, code lines, table cells…) are separate lines, or words would run together.
    if (child.object === "block" || child.object === "fragment") out.push("\n");
  }
}

function textOf(node: JsonNode): string {
  const out: string[] = [];
  nodeText(node, out);
  return out
    .join("")
    .replace(/[ \t]*\n[\s]*/g, "\n")
    .trim();
}

/** Sections of a page from its stored JSON document (null for a page without body). */
export function pageSections(documentJson: string | null): PageSection[] {
  const opening: PageSection = { position: 0, anchor: "", heading: "", text: "" };
  if (documentJson === null) return [opening];
  const document = JSON.parse(documentJson) as JsonNode;
  const blocks = Array.isArray(document.nodes) ? document.nodes.filter(isNode) : [];
  const sections: PageSection[] = [opening];
  const lines: string[][] = [[]];
  const slugger = new GithubSlugger();
  let budget = MAX_INDEXED_PAGE_TEXT;
  for (const block of blocks) {
    // Past the budget nothing more is indexed, headings included.
    if (budget <= 0) break;
    if (typeof block.type === "string" && HEADING.test(block.type)) {
      const heading = textOf(block).slice(0, Math.min(1000, budget));
      const id = isNode(block.data) && typeof block.data.id === "string" ? block.data.id : "";
      // The document has no id for headings whose slug is not URL-safe ASCII; slug them here.
      const anchor = id || slugger.slug(heading);
      sections.push({ position: sections.length, anchor, heading, text: "" });
      lines.push([]);
      budget -= heading.length;
      continue;
    }
    const text = textOf(block).slice(0, budget);
    if (text === "") continue;
    budget -= text.length;
    lines[lines.length - 1]!.push(text);
  }
  sections.forEach((section, index) => {
    section.text = lines[index]!.join("\n");
  });
  return sections;
}
