import { defineEntity, p } from "@mikro-orm/postgresql";
import { Branch } from "./branches/entities.js";

/**
 * Tables of the revision store (see docs/revisions.md). Rows other than `revisions` are immutable
 * and content-addressed within a *store*: the set of spaces that share content because one was
 * duplicated from another. Hot paths use hand-written SQL; these definitions keep the schema
 * (written by hand in Migration20261121100100) and the ORM's view of it identical.
 */

export const REVISION_STATUSES = ["draft", "committed"] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

/** A revision of a space, or a draft (an uncommitted revision owned by the user who opened it). */
export const RevisionSchema = defineEntity({
  name: "Revision",
  tableName: "revisions",
  properties: {
    id: p.string().length(64).primary(),
    spaceId: p.uuid(),
    /** Spaces sharing content (a space and its duplicates) share a store. */
    storeId: p.uuid(),
    parents: p.array().default([]),
    status: p.enum(REVISION_STATUSES),
    /** Root node of the content tree; null for empty content. */
    root: p.string().length(32).nullable(),
    variables: p.json<Record<string, string>>().default("{}"),
    type: p.string().length(32).default("edits"),
    message: p.text().default(""),
    git: p.json<Record<string, unknown>>().nullable(),
    /** Who opened the draft (null for system-made revisions). */
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
    committedAt: p.datetime().nullable(),
    /** The change request whose branch the revision (or draft) was made on; null for the space's own history. */
    branchId: p.uuid().nullable(),
  },
  indexes: [
    { properties: ["spaceId", "status"], name: "revisions_space_status_index" },
    { properties: ["storeId"], name: "revisions_store_index" },
  ],
});
export class Revision extends RevisionSchema.class {}
RevisionSchema.setClass(Revision);

/** A node of a content tree (see store/btree.ts). */
export const TreeNodeRowSchema = defineEntity({
  name: "TreeNodeRow",
  tableName: "tree_nodes",
  properties: {
    storeId: p.uuid().primary(),
    id: p.string().length(32).primary(),
    data: p.json<unknown>(),
  },
});
export class TreeNodeRow extends TreeNodeRowSchema.class {}
TreeNodeRowSchema.setClass(TreeNodeRow);

/** One version of a page: its place in the tree and every field but the body. */
export const PageVersionSchema = defineEntity({
  name: "PageVersion",
  tableName: "page_versions",
  properties: {
    storeId: p.uuid().primary(),
    id: p.string().length(32).primary(),
    pageId: p.string().length(64),
    type: p.string().length(16),
    parentId: p.string().length(64).nullable(),
    position: p.string().length(128),
    slug: p.string().length(100),
    title: p.string().length(255),
    emoji: p.string().length(50).default(""),
    icon: p.string().length(50).default(""),
    description: p.text().default(""),
    /** Content hash of the markdown body; null for a page without body. */
    bodyId: p.string().length(64).nullable(),
    hidden: p.boolean().default(false),
    noIndex: p.boolean().default(false),
    noRobotsIndex: p.boolean().default(false),
    layout: p.json<Record<string, unknown>>(),
    cover: p.json<Record<string, unknown>>().nullable(),
    variables: p.json<Record<string, string>>().default("{}"),
    href: p.text().nullable(),
    git: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class PageVersion extends PageVersionSchema.class {}
PageVersionSchema.setClass(PageVersion);

/** A page or reusable-content body: the markdown source and the document parsed from it. */
export const ContentBodySchema = defineEntity({
  name: "ContentBody",
  tableName: "content_bodies",
  properties: {
    storeId: p.uuid().primary(),
    /** SHA-256 of the markdown, hex. */
    id: p.string().length(64).primary(),
    markdown: p.text(),
    /** JSON of the document (GitBook's shape), kept as text: it is served as is. */
    document: p.text(),
  },
});
export class ContentBody extends ContentBodySchema.class {}
ContentBodySchema.setClass(ContentBody);

/** One version of a file: its metadata and the key of its bytes in the blob store. */
export const FileVersionSchema = defineEntity({
  name: "FileVersion",
  tableName: "file_versions",
  properties: {
    storeId: p.uuid().primary(),
    id: p.string().length(32).primary(),
    fileId: p.string().length(64),
    name: p.string().length(255),
    contentType: p.string().length(255),
    size: p.bigint("number"),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    /** SHA-256 of the bytes, hex: the blob store key. */
    blobKey: p.string().length(64),
    git: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["blobKey"], name: "file_versions_blob_key_index" }],
});
export class FileVersion extends FileVersionSchema.class {}
FileVersionSchema.setClass(FileVersion);

/** One version of a reusable content. */
export const ReusableContentVersionSchema = defineEntity({
  name: "ReusableContentVersion",
  tableName: "reusable_content_versions",
  properties: {
    storeId: p.uuid().primary(),
    id: p.string().length(32).primary(),
    reusableContentId: p.string().length(64),
    title: p.string().length(255),
    bodyId: p.string().length(64).nullable(),
    git: p.json<Record<string, unknown>>().nullable(),
  },
});
export class ReusableContentVersion extends ReusableContentVersionSchema.class {}
ReusableContentVersionSchema.setClass(ReusableContentVersion);

/** Every entity of the revision store. */
export const revisionEntities = [Revision, TreeNodeRow, PageVersion, ContentBody, FileVersion, ReusableContentVersion, Branch];
