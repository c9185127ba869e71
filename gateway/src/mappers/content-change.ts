import { AppError } from "@imprint/runtime/core";
import {
  ContentChangeType,
  PageType,
  type ChangedFile,
  type ChangedPage,
  type ContentChange,
  type FileChangeAttributes,
  type PageChangeAttributes,
  type StringChange,
} from "@imprint/proto/content/v1/revisions";
import { cover, toRestLayout } from "./page.js";

/** GitBook's `RevisionSemanticChange` objects (getChangeRequestChanges). */

const PAGE_TYPE_NAMES: Partial<Record<PageType, string>> = {
  [PageType.PAGE_TYPE_DOCUMENT]: "document",
  [PageType.PAGE_TYPE_GROUP]: "group",
  [PageType.PAGE_TYPE_LINK]: "link",
};

function changedPage(page: ChangedPage | undefined): Record<string, unknown> {
  if (!page) throw new AppError("internal", "upstream answered a page change without its page");
  const type = PAGE_TYPE_NAMES[page.type];
  if (!type) throw new AppError("internal", `upstream answered an unknown page type ${String(page.type)}`);
  return { id: page.id, type, title: page.title, ...(page.path ? { path: page.path } : {}) };
}

function changedFile(file: ChangedFile | undefined): Record<string, unknown> {
  if (!file) throw new AppError("internal", "upstream answered a file change without its file");
  return { id: file.id, name: file.name, contentType: file.contentType, downloadURL: file.downloadUrl };
}

/** `{before, after}`, each side only when it has a value. */
function sides<T, R>(before: T | undefined, after: T | undefined, map: (value: T) => R | undefined): Record<string, R> {
  const out: Record<string, R> = {};
  const mappedBefore = before === undefined ? undefined : map(before);
  const mappedAfter = after === undefined ? undefined : map(after);
  if (mappedBefore !== undefined) out.before = mappedBefore;
  if (mappedAfter !== undefined) out.after = mappedAfter;
  return out;
}

const text = (change: StringChange) => sides(change.before, change.after, (value) => value);

function pageAttributes(attributes: PageChangeAttributes | undefined): Record<string, unknown> {
  if (!attributes) throw new AppError("internal", "upstream answered a page edit without its attributes");
  const out: Record<string, unknown> = {};
  if (attributes.title) out.title = text(attributes.title);
  if (attributes.description) out.description = text(attributes.description);
  if (attributes.slug) out.slug = text(attributes.slug);
  if (attributes.document) out.document = text(attributes.document);
  if (attributes.emoji) out.emoji = text(attributes.emoji);
  if (attributes.cover) out.cover = sides(attributes.cover.before, attributes.cover.after, cover);
  if (attributes.layout) out.layout = sides(attributes.layout.before, attributes.layout.after, toRestLayout);
  if (attributes.variables) out.variables = { before: attributes.variables.before, after: attributes.variables.after };
  if (attributes.href) out.target = sides(attributes.href.before, attributes.href.after, (url) => ({ kind: "url", url }));
  return out;
}

function fileAttributes(attributes: FileChangeAttributes | undefined): Record<string, unknown> {
  if (!attributes) throw new AppError("internal", "upstream answered a file edit without its attributes");
  const out: Record<string, unknown> = {};
  if (attributes.name) out.name = text(attributes.name);
  if (attributes.downloadUrl) out.downloadURL = text(attributes.downloadUrl);
  if (attributes.size) out.size = sides(attributes.size.before, attributes.size.after, Number);
  if (attributes.contentType) out.contentType = text(attributes.contentType);
  if (attributes.dimensions) out.dimensions = sides(attributes.dimensions.before, attributes.dimensions.after, ({ width, height }) => ({ width, height }));
  return out;
}

export function toRestContentChange(change: ContentChange): Record<string, unknown> {
  switch (change.type) {
    case ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_CREATED:
      return { type: "page_created", page: changedPage(change.page) };
    case ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_DELETED:
      return { type: "page_deleted", page: changedPage(change.page) };
    case ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_EDITED:
      return { type: "page_edited", page: changedPage(change.page), attributes: pageAttributes(change.pageAttributes) };
    case ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_MOVED:
      return {
        type: "page_moved",
        page: changedPage(change.page),
        parent: {
          ...(change.parentBefore ? { before: changedPage(change.parentBefore) } : {}),
          ...(change.parentAfter ? { after: changedPage(change.parentAfter) } : {}),
        },
      };
    case ContentChangeType.CONTENT_CHANGE_TYPE_FILE_CREATED:
      return { type: "file_created", file: changedFile(change.file) };
    case ContentChangeType.CONTENT_CHANGE_TYPE_FILE_DELETED:
      return { type: "file_deleted", file: changedFile(change.file) };
    case ContentChangeType.CONTENT_CHANGE_TYPE_FILE_EDITED:
      return { type: "file_edited", file: changedFile(change.file), attributes: fileAttributes(change.fileAttributes) };
    default:
      throw new AppError("internal", `upstream answered an unknown change type ${String(change.type)}`);
  }
}
