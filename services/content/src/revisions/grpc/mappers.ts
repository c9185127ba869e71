import {
  PageType as ProtoPageType,
  type File,
  type GitBlob,
  type ImageRef,
  type Page,
  type PageCover,
  type PageSummary,
  type PageLayout,
  type ReusableContent,
  type Revision,
} from "@imprint/proto/content/v1/revisions";
import type { ContentRef as ProtoContentRef } from "@imprint/proto/content/v1/revisions";
import type { Draft } from "@imprint/proto/content/v1/editing";
import { signedDownloadUrl, type FileUrlSigner } from "../domain/files/signed-url.js";
import type { RevisionHeader } from "../domain/tree/caches.js";
import type { PageTree } from "../domain/tree/content-view.js";
import type { FileRecord, GitBlobValue, ImageRefValue, PageCoverValue, PageLayoutValue, PageRecord, PageType, ReusableRecord } from "../domain/tree/model.js";
import type { ContentRefInput } from "../use-cases/shared/open-content.js";
import type { RevisionContent } from "../use-cases/get-revision.js";

export const PAGE_TYPES: Record<PageType, ProtoPageType> = {
  document: ProtoPageType.PAGE_TYPE_DOCUMENT,
  group: ProtoPageType.PAGE_TYPE_GROUP,
  link: ProtoPageType.PAGE_TYPE_LINK,
};

export function contentRefFromProto(ref: ProtoContentRef | undefined): ContentRefInput | undefined {
  return ref ? { spaceId: ref.spaceId, changeRequestId: ref.changeRequestId, revisionId: ref.revisionId } : undefined;
}

function gitBlob(git: GitBlobValue | null, metadata: boolean): GitBlob | undefined {
  return metadata && git ? { oid: git.oid, path: git.path } : undefined;
}

export function layoutToProto(layout: PageLayoutValue): PageLayout {
  return { ...layout };
}

function imageRefToProto(ref: ImageRefValue): ImageRef {
  return ref.kind === "file" ? { fileId: ref.file, url: "" } : { fileId: "", url: ref.url };
}

export function coverToProto(cover: PageCoverValue | null): PageCover | undefined {
  if (!cover) return undefined;
  return { ref: imageRefToProto(cover.ref), ...(cover.refDark ? { refDark: imageRefToProto(cover.refDark) } : {}), yPos: cover.yPos };
}

export interface PageMapping {
  /** Include git metadata. */
  metadata: boolean;
  /** Markdown by body id: pages whose body is here carry it (page lists). */
  markdown?: ReadonlyMap<string, string>;
}

/** A page without sub-pages or body. */
export function pageToProto(page: PageRecord, path: string, mapping: PageMapping, pages: Page[] = []): Page {
  const markdown = page.bodyId ? mapping.markdown?.get(page.bodyId) : mapping.markdown ? "" : undefined;
  return {
    id: page.pageId,
    type: PAGE_TYPES[page.type],
    title: page.title,
    emoji: page.emoji,
    icon: page.icon,
    slug: page.slug,
    path,
    description: page.description,
    documentId: page.bodyId ?? "",
    hidden: page.hidden,
    noIndex: page.noIndex,
    noRobotsIndex: page.noRobotsIndex,
    layout: layoutToProto(page.layout),
    cover: coverToProto(page.cover),
    variables: page.variables,
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    href: page.href ?? "",
    git: gitBlob(page.git, mapping.metadata),
    pages,
    markdown: markdown ?? "",
    documentJson: "",
    hasMarkdown: markdown !== undefined && page.type === "document",
    hasDocument: false,
  };
}

/** The short facts of a page (for lists that point at pages). */
export function pageSummaryToProto(page: PageRecord, path: string): PageSummary {
  return { id: page.pageId, title: page.title, emoji: page.emoji, icon: page.icon, path, createdAt: page.createdAt, updatedAt: page.updatedAt };
}

/** A page with its sub-pages, recursively. */
export function pageTreeToProto(tree: PageTree, mapping: PageMapping): Page {
  return pageToProto(
    tree.page,
    tree.path,
    mapping,
    tree.children.map((child) => pageTreeToProto(child, mapping)),
  );
}

export function fileToProto(file: FileRecord, signer: FileUrlSigner, now: Date, metadata: boolean): File {
  return {
    id: file.fileId,
    name: file.name,
    contentType: file.contentType,
    size: String(file.size),
    width: file.width ?? 0,
    height: file.height ?? 0,
    downloadUrl: signedDownloadUrl(signer, file.fileId, file.id, now),
    git: gitBlob(file.git, metadata),
  };
}

export function reusableToProto(item: ReusableRecord, metadata: boolean): ReusableContent {
  return { id: item.reusableContentId, title: item.title, documentId: item.bodyId ?? "", git: gitBlob(item.git, metadata) };
}

export function revisionToProto(content: RevisionContent, signer: FileUrlSigner, now: Date, metadata: boolean): Revision {
  const { revision } = content;
  const mapping: PageMapping = { metadata, markdown: content.markdown };
  const git = revision.git as { oid?: string; message?: string; url?: string; ref?: string; createdByService?: boolean } | null;
  return {
    id: revision.id,
    spaceId: revision.spaceId,
    parents: revision.parents,
    pages: content.pages.map((tree) => pageTreeToProto(tree, mapping)),
    files: content.files.map((file) => fileToProto(file, signer, now, metadata)),
    reusableContents: content.reusables.map((item) => reusableToProto(item, metadata)),
    variables: revision.variables,
    createdAt: revision.committedAt ?? revision.createdAt,
    type: revision.type,
    message: revision.message,
    git:
      metadata && git
        ? { oid: git.oid ?? "", message: git.message ?? "", url: git.url ?? "", ref: git.ref ?? "", createdByService: git.createdByService ?? false }
        : undefined,
    draft: revision.status === "draft",
    organizationId: content.organizationId,
    mergedChangeRequestId: content.mergedChangeRequestId ?? "",
  };
}

export function draftToProto(draft: RevisionHeader): Draft {
  return {
    id: draft.id,
    spaceId: draft.spaceId,
    parentRevisionId: draft.parents[0] ?? "",
    committed: draft.status === "committed",
    changeRequestId: draft.branchId ?? "",
  };
}
