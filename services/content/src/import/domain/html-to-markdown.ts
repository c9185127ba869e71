import type { Root as HastRoot } from "hast";
import type { Root as MdastRoot } from "mdast";
import rehypeRemark from "rehype-remark";
import remarkGfm from "remark-gfm";
import remarkStringify from "remark-stringify";
import { unified } from "unified";
import { parseHtml } from "./extract.js";

/**
 * HTML → markdown with the unified ecosystem: rehype-parse (in extract.ts) → rehype-remark
 * (hast → mdast) → remark-gfm (tables, strikethrough, task lists) → remark-stringify. The mdast
 * step is exposed so the importer can rewrite link and image targets before serializing.
 */
const toMdast = unified().use(rehypeRemark).use(remarkGfm);
const toMarkdown = unified().use(remarkGfm).use(remarkStringify, { bullet: "-", fences: true, rule: "-", emphasis: "_", strong: "*", listItemIndent: "one" });

export async function hastToMdast(content: HastRoot): Promise<MdastRoot> {
  // structuredClone: the transform must not reuse nodes of the caller's tree.
  return toMdast.run(structuredClone(content));
}

export function mdastToMarkdown(tree: MdastRoot): string {
  return toMarkdown.stringify(tree).trim() + "\n";
}

/** Whole pipeline for one HTML fragment or document (no link rewriting). */
export async function htmlToMarkdown(html: string): Promise<string> {
  return mdastToMarkdown(await hastToMdast(parseHtml(html)));
}
