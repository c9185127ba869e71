import {
  ContentChangeType,
  type ChangedFile as ProtoChangedFile,
  type ChangedPage as ProtoChangedPage,
  type ContentChange as ProtoContentChange,
  type FileChangeAttributes,
  type PageChangeAttributes,
  type StringChange,
} from "@imprint/proto/content/v1/revisions";
import { signedDownloadUrl, type FileUrlSigner } from "../domain/files/signed-url.js";
import type { ChangedPage, ContentChange, PageAttributeChanges, ValueChange } from "../domain/changes/content-changes.js";
import type { FileRecord } from "../domain/tree/model.js";
import { coverToProto, layoutToProto, PAGE_TYPES } from "./mappers.js";

const TYPES: Record<ContentChange["type"], ContentChangeType> = {
  page_created: ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_CREATED,
  page_edited: ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_EDITED,
  page_deleted: ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_DELETED,
  page_moved: ContentChangeType.CONTENT_CHANGE_TYPE_PAGE_MOVED,
  file_created: ContentChangeType.CONTENT_CHANGE_TYPE_FILE_CREATED,
  file_edited: ContentChangeType.CONTENT_CHANGE_TYPE_FILE_EDITED,
  file_deleted: ContentChangeType.CONTENT_CHANGE_TYPE_FILE_DELETED,
};

function changedPage(changed: ChangedPage): ProtoChangedPage {
  return { id: changed.page.pageId, type: PAGE_TYPES[changed.page.type], title: changed.page.title, path: changed.path };
}

function strings(change: ValueChange<string> | undefined): StringChange | undefined {
  return change
    ? { ...(change.before !== undefined ? { before: change.before } : {}), ...(change.after !== undefined ? { after: change.after } : {}) }
    : undefined;
}

function pageAttributes(attributes: PageAttributeChanges): PageChangeAttributes {
  const { cover, layout, variables } = attributes;
  return {
    title: strings(attributes.title),
    description: strings(attributes.description),
    slug: strings(attributes.slug),
    document: strings(attributes.document),
    emoji: strings(attributes.emoji),
    cover: cover ? { before: coverToProto(cover.before ?? null), after: coverToProto(cover.after ?? null) } : undefined,
    layout: layout ? { before: layout.before && layoutToProto(layout.before), after: layout.after && layoutToProto(layout.after) } : undefined,
    variables: variables ? { before: variables.before ?? {}, after: variables.after ?? {} } : undefined,
    href: strings(attributes.href),
  };
}

const dimensions = (file: FileRecord) => (file.width && file.height ? { width: file.width, height: file.height } : undefined);

function changedFile(file: FileRecord, url: string): ProtoChangedFile {
  return { id: file.fileId, name: file.name, contentType: file.contentType, downloadUrl: url };
}

function fileAttributes(before: FileRecord, after: FileRecord, urls: { before: string; after: string }): FileChangeAttributes {
  const string = (a: string, b: string): StringChange | undefined => (a === b ? undefined : { before: a, after: b });
  const sizeBefore = dimensions(before);
  const sizeAfter = dimensions(after);
  return {
    name: string(before.name, after.name),
    downloadUrl: before.blobKey === after.blobKey ? undefined : { before: urls.before, after: urls.after },
    size: before.size === after.size ? undefined : { before: String(before.size), after: String(after.size) },
    contentType: string(before.contentType, after.contentType),
    dimensions: before.width === after.width && before.height === after.height ? undefined : { before: sizeBefore, after: sizeAfter },
  };
}

/** A change as RevisionService answers it; file URLs are signed for the version each side has. */
export function contentChangeToProto(change: ContentChange, signer: FileUrlSigner, now: Date): ProtoContentChange {
  const url = (file: FileRecord) => signedDownloadUrl(signer, file.fileId, file.id, now);
  const base = {
    type: TYPES[change.type],
    page: undefined,
    parentBefore: undefined,
    parentAfter: undefined,
    pageAttributes: undefined,
    file: undefined,
    fileAttributes: undefined,
  };
  switch (change.type) {
    case "page_created":
    case "page_deleted":
      return { ...base, page: changedPage(change.page) };
    case "page_moved":
      return {
        ...base,
        page: changedPage(change.page),
        parentBefore: change.parentBefore ? changedPage(change.parentBefore) : undefined,
        parentAfter: change.parentAfter ? changedPage(change.parentAfter) : undefined,
      };
    case "page_edited":
      return { ...base, page: changedPage(change.page), pageAttributes: pageAttributes(change.attributes) };
    case "file_created":
    case "file_deleted":
      return { ...base, file: changedFile(change.file, url(change.file)) };
    case "file_edited":
      return {
        ...base,
        file: changedFile(change.file, url(change.file)),
        fileAttributes: fileAttributes(change.before, change.file, { before: url(change.before), after: url(change.file) }),
      };
  }
}
