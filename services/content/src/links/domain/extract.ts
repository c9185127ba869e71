import { contentRefFor, type ContentRef, type JsonDocument } from "@imprint/document";
import type { ImageRefValue, PageRecord } from "../../revisions/index.js";

/**
 * Link extraction: every reference a page version makes, from its parts that can hold one. The
 * body's document (parsed once when the markdown was written) gives links, inline images and
 * image blocks, inside tables too; a link page gives its target; a cover gives its images.
 * Anchors within the same page (`#section`) point nowhere else and are left out.
 */

export type LinkRelationName = "reference" | "dependsOn";
export type LinkTargetKindName = "page" | "file" | "url";

/** One reference of a page version (stored as JSON in page_version_links.links). */
export interface ExtractedLink {
  relation: LinkRelationName;
  kind: LinkTargetKindName;
  /** Page id, file id or URL. */
  target: string;
  /** Heading anchor within the target page. */
  anchor?: string;
}

/** Identity of a link target (what the link list groups by); sorts by kind, then target. */
export function linkKey(link: ExtractedLink): string {
  return `${link.kind}\u0001${link.target}\u0001${link.anchor ?? ""}\u0001${link.relation}`;
}

function fromContentRef(ref: ContentRef, relation: LinkRelationName): ExtractedLink | undefined {
  switch (ref.kind) {
    case "page":
      return { relation, kind: "page", target: ref.page };
    case "anchor":
      return ref.page ? { relation, kind: "page", target: ref.page, anchor: ref.anchor } : undefined;
    case "file":
      return { relation, kind: "file", target: ref.file };
    case "url":
      return ref.url.trim() === "" ? undefined : { relation, kind: "url", target: ref.url };
  }
}

function fromImageRef(ref: ImageRefValue): ExtractedLink {
  return ref.kind === "file" ? { relation: "dependsOn", kind: "file", target: ref.file } : { relation: "dependsOn", kind: "url", target: ref.url };
}

interface DocumentNodeLike {
  object?: string;
  type?: string;
  data?: { ref?: ContentRef; [field: string]: unknown };
  nodes?: DocumentNodeLike[];
  fragments?: DocumentNodeLike[];
}

const IMAGE_TYPES = new Set(["inline-image", "image"]);

/** The references of a page version, each target once, in the order they first appear. */
export function extractPageLinks(page: PageRecord, document: JsonDocument | undefined): ExtractedLink[] {
  const found = new Map<string, ExtractedLink>();
  const add = (link: ExtractedLink | undefined) => {
    if (link && !found.has(linkKey(link))) found.set(linkKey(link), link);
  };
  const walk = (nodes: readonly DocumentNodeLike[] | undefined) => {
    for (const node of nodes ?? []) {
      const ref = node.data?.ref;
      if (ref && typeof ref === "object" && typeof ref.kind === "string") {
        add(fromContentRef(ref, IMAGE_TYPES.has(node.type ?? "") ? "dependsOn" : "reference"));
      }
      walk(node.nodes);
      walk(node.fragments);
    }
  };
  if (page.type === "link" && page.href) add(fromContentRef(contentRefFor(page.href), "reference"));
  if (page.cover) {
    add(fromImageRef(page.cover.ref));
    if (page.cover.refDark) add(fromImageRef(page.cover.refDark));
  }
  if (document) walk(document.nodes);
  return [...found.values()];
}
