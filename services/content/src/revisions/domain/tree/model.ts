import { createHash } from "node:crypto";

/** What the revision store keeps about pages, files and reusable contents (one immutable version each). */

export const PAGE_TYPES = ["document", "group", "link"] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export const LAYOUT_WIDTHS = ["default", "wide"] as const;
export const LAYOUT_COVER_SIZES = ["hero", "full", "background"] as const;
export const LAYOUT_COVER_MASKS = ["none", "radial"] as const;

export interface PageLayoutValue {
  width: (typeof LAYOUT_WIDTHS)[number];
  cover: boolean;
  coverSize: (typeof LAYOUT_COVER_SIZES)[number];
  coverMask: (typeof LAYOUT_COVER_MASKS)[number];
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
  tags: boolean;
  actions: boolean;
  anchors: boolean;
}

export const DEFAULT_LAYOUT: PageLayoutValue = {
  width: "default",
  cover: true,
  coverSize: "hero",
  coverMask: "none",
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
};

export type ImageRefValue = { kind: "file"; file: string } | { kind: "url"; url: string };
export interface PageCoverValue {
  ref: ImageRefValue;
  refDark?: ImageRefValue;
  yPos: number;
}
export interface GitBlobValue {
  oid: string;
  path: string;
}

/** One version of a page. `id` is the version's content hash; `pageId` is stable across versions. */
export interface PageRecord {
  id: string;
  pageId: string;
  type: PageType;
  parentId: string | null;
  /** Fractional index among the siblings (compares by code units). */
  position: string;
  slug: string;
  title: string;
  emoji: string;
  icon: string;
  description: string;
  /** Content hash of the markdown body; null when the page has none. */
  bodyId: string | null;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout: PageLayoutValue;
  cover: PageCoverValue | null;
  variables: Record<string, string>;
  href: string | null;
  git: GitBlobValue | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FileRecord {
  id: string;
  fileId: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  /** SHA-256 of the bytes: the blob store key. */
  blobKey: string;
  git: GitBlobValue | null;
  createdAt: Date;
}

export interface ReusableRecord {
  id: string;
  reusableContentId: string;
  title: string;
  bodyId: string | null;
  git: GitBlobValue | null;
}

export interface BodyRecord {
  /** SHA-256 of the markdown. */
  id: string;
  markdown: string;
  /** JSON text of the document. */
  document: string;
}

/** JSON with object keys sorted, so equal values always serialize (and hash) alike. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** Content address of a version row: 128 bits of SHA-256 of its fields. */
export function versionIdOf(fields: object): string {
  return createHash("sha256").update(canonicalJson(fields)).digest("hex").slice(0, 32);
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A page version with its id computed from the other fields. */
export function pageRecord(fields: Omit<PageRecord, "id">): PageRecord {
  return { id: versionIdOf(fields), ...fields };
}

export function fileRecord(fields: Omit<FileRecord, "id">): FileRecord {
  return { id: versionIdOf(fields), ...fields };
}

export function reusableRecord(fields: Omit<ReusableRecord, "id">): ReusableRecord {
  return { id: versionIdOf(fields), ...fields };
}

/** Every page of a content tree, with the parent → children order and each page's path. */
export interface PageIndex {
  byId: Map<string, PageRecord>;
  /** Parent id ("" for the top level) → child page ids in order. */
  children: Map<string, string[]>;
  /** Page id → path (slugs from the top level, joined with "/"). */
  paths: Map<string, string>;
}
