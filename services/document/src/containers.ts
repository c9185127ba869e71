/**
 * Which block types each container of GitBook's document model may hold, as GitBook's published
 * schema (`@gitbook/api`, components.schemas `DocumentBlock…`) defines them, for the block types
 * this model has. Internal: `markdownToDocument` degrades what a container forbids, and
 * `documentToMarkdown` refuses the blocks markdown would only read back degraded.
 */

/** Where blocks are placed; each container admits a different set of block types. */
export type Container = "document" | "list-item" | "quote" | "hint" | "tabs-item" | "stepper-step" | "expandable" | "column" | "update";

export interface Allows {
  code: boolean;
  images: boolean;
  table: boolean;
  quote: boolean;
  hint: boolean;
  tabs: boolean;
  expandable: boolean;
  embed: boolean;
  math: boolean;
  /** A card: GitBook's `content-ref` block. */
  contentRef: boolean;
  stepper: boolean;
  file: boolean;
  /** GitBook's `reusable-content` block: `{% include "…" %}`. */
  reusableContent: boolean;
  /** GitBook's OpenAPI blocks (`swagger`, `openapi-operation`): top level only. */
  openapi: boolean;
  /** GitBook's conditional content (`if`): top level only (and inside another `if`, whose blocks are top-level blocks). */
  conditional: boolean;
  /** GitBook's columns layout (`columns` of `column` blocks): top level only. */
  columns: boolean;
  /** GitBook's changelog (`updates` of dated `update` blocks): top level only. */
  updates: boolean;
}

// Paragraphs, headings, lists and dividers are allowed everywhere (GitBook's "essentials").
const NONE = { contentRef: false, stepper: false, file: false, reusableContent: false, openapi: false, conditional: false, columns: false, updates: false };
const NOT_TOP_LEVEL = { openapi: false, conditional: false, columns: false, updates: false };
export const ALLOWS: Record<Container, Allows> = {
  document: {
    code: true,
    images: true,
    table: true,
    quote: true,
    hint: true,
    tabs: true,
    expandable: true,
    embed: true,
    math: true,
    contentRef: true,
    stepper: true,
    file: true,
    reusableContent: true,
    openapi: true,
    conditional: true,
    columns: true,
    updates: true,
  },
  "list-item": { code: true, images: false, table: true, quote: true, hint: true, tabs: false, expandable: false, embed: false, math: true, ...NONE },
  quote: { code: false, images: false, table: false, quote: true, hint: false, tabs: false, expandable: false, embed: false, math: false, ...NONE },
  hint: { code: false, images: false, table: true, quote: false, hint: false, tabs: false, expandable: false, embed: true, math: false, ...NONE },
  "tabs-item": {
    code: true,
    images: true,
    table: false,
    quote: true,
    hint: true,
    tabs: false,
    expandable: false,
    embed: true,
    math: true,
    contentRef: true,
    stepper: false,
    file: true,
    reusableContent: false,
    ...NOT_TOP_LEVEL,
  },
  "stepper-step": {
    code: true,
    images: true,
    table: false,
    quote: true,
    hint: true,
    tabs: false,
    expandable: true,
    embed: true,
    math: true,
    contentRef: true,
    stepper: false,
    file: true,
    reusableContent: false,
    ...NOT_TOP_LEVEL,
  },
  expandable: {
    code: true,
    images: true,
    table: true,
    quote: true,
    hint: true,
    tabs: false,
    expandable: false,
    embed: false,
    math: false,
    ...NONE,
    file: true,
    reusableContent: true,
  },
  column: {
    code: true,
    images: true,
    table: true,
    quote: true,
    hint: true,
    tabs: false,
    expandable: true,
    embed: true,
    math: true,
    contentRef: true,
    stepper: true,
    file: true,
    reusableContent: false,
    ...NOT_TOP_LEVEL,
  },
  update: {
    code: true,
    images: true,
    table: false,
    quote: true,
    hint: true,
    tabs: true,
    expandable: true,
    embed: true,
    math: true,
    contentRef: true,
    stepper: false,
    file: true,
    reusableContent: false,
    ...NOT_TOP_LEVEL,
  },
};

/** The container, as an error message names it. */
export const CONTAINER_NAME: Record<Container, string> = {
  document: "the document",
  "list-item": "a list item",
  quote: "a blockquote",
  hint: "a hint",
  "tabs-item": "a tab",
  "stepper-step": "a step",
  expandable: "an expandable",
  column: "a column",
  update: "an update",
};
