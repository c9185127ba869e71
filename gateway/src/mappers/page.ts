import { AppError } from "@imprint/runtime/core";
import { PageType, type ImageRef, type Page, type PageCover, type PageLayout } from "@imprint/proto/content/v1/revisions";
import type { PublicUrls } from "./urls.js";

/**
 * GitBook's `RevisionPage` objects: documents (`kind` "sheet"), groups and links. Every document
 * page carries its body (the published schema requires `markdown` or `document` on each): the
 * markdown in lists and sub-pages, the requested format on the page read itself.
 */

type RestImageRef = { kind: "file"; file: string } | { kind: "url"; url: string };

export interface PageContext {
  urls: PublicUrls;
  organizationId: string;
  spaceId: string;
  /** The change request (id or number, as addressed) whose content the page is read from. */
  changeRequest?: string;
  /** The revision the page is read from, when read by revision (its history). */
  revision?: string;
}

function imageRef(ref: ImageRef | undefined): RestImageRef | undefined {
  if (!ref) return undefined;
  return ref.fileId ? { kind: "file", file: ref.fileId } : { kind: "url", url: ref.url };
}

/** GitBook's `RevisionPageDocumentCover`; undefined without a cover. */
export function cover(value: PageCover | undefined): Record<string, unknown> | undefined {
  const ref = imageRef(value?.ref);
  if (!value || !ref) return undefined;
  const dark = imageRef(value.refDark);
  return { ref, ...(dark ? { refDark: dark } : {}), yPos: value.yPos };
}

/** The page's location in the web application. */
export function pageAppUrl(context: PageContext, path: string): string {
  const encodedPath = path.split("/").map(encodeURIComponent).join("/");
  const changes = context.changeRequest
    ? `~/changes/${encodeURIComponent(context.changeRequest)}/`
    : context.revision
      ? `~/revisions/${encodeURIComponent(context.revision)}/`
      : "";
  return `${context.urls.app}/o/${encodeURIComponent(context.organizationId)}/s/${encodeURIComponent(context.spaceId)}/${changes}${encodedPath}`;
}

/** GitBook's `RevisionPageLayoutOptions`. */
export function toRestLayout(layout: PageLayout): Record<string, unknown> {
  return {
    width: layout.width,
    cover: layout.cover,
    coverSize: layout.coverSize,
    coverMask: layout.coverMask,
    title: layout.title,
    description: layout.description,
    tableOfContents: layout.tableOfContents,
    outline: layout.outline,
    pagination: layout.pagination,
    metadata: layout.metadata,
    tags: layout.tags,
    actions: layout.actions,
    anchors: layout.anchors,
  };
}

function body(page: Page): { markdown: string } | { document: unknown } | Record<string, never> {
  if (page.hasDocument) return { document: JSON.parse(page.documentJson) as unknown };
  if (page.hasMarkdown) return { markdown: page.markdown };
  return {};
}

export function toRestPage(page: Page, context: PageContext): Record<string, unknown> {
  const common = {
    id: page.id,
    title: page.title,
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    ...(page.createdAt ? { createdAt: page.createdAt.toISOString() } : {}),
    ...(page.updatedAt ? { updatedAt: page.updatedAt.toISOString() } : {}),
  };
  const pages = page.pages.map((child) => toRestPage(child, context));
  switch (page.type) {
    case PageType.PAGE_TYPE_DOCUMENT: {
      const layout = page.layout;
      if (!layout) throw new AppError("internal", "upstream answered a document page without layout");
      const pageCover = cover(page.cover);
      return {
        ...common,
        kind: "sheet",
        type: "document",
        urls: { app: pageAppUrl(context, page.path) },
        slug: page.slug,
        path: page.path,
        ...(page.description ? { description: page.description } : {}),
        ...(page.documentId ? { documentId: page.documentId } : {}),
        pages,
        ...(page.git ? { git: { oid: page.git.oid, path: page.git.path } } : {}),
        layout: toRestLayout(layout),
        ...(pageCover ? { cover: pageCover } : {}),
        variables: page.variables,
        hidden: page.hidden,
        noIndex: page.noIndex,
        noRobotsIndex: page.noRobotsIndex,
        tags: [],
        ...body(page),
      };
    }
    case PageType.PAGE_TYPE_GROUP:
      return {
        ...common,
        kind: "group",
        type: "group",
        slug: page.slug,
        path: page.path,
        hidden: page.hidden,
        noIndex: page.noIndex,
        noRobotsIndex: page.noRobotsIndex,
        pages,
      };
    case PageType.PAGE_TYPE_LINK:
      return { ...common, kind: "link", type: "link", target: { kind: "url", url: page.href }, href: page.href, hidden: page.hidden };
    default:
      throw new AppError("internal", `upstream answered an unknown page type ${String(page.type)}`);
  }
}
