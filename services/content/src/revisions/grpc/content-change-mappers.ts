import type {
  AffectedPage as ProtoAffectedPage,
  BranchContentChange as ProtoContentChange,
  ContentPageFields as ProtoPageFields,
} from "@imprint/proto/content/v1/editing";
import { AffectedPageKind } from "@imprint/proto/content/v1/editing";
import { AppError } from "@imprint/runtime";
import type { ContentChange, ContentPageFields, FileToInsert } from "../domain/authoring/changes.js";
import type { AffectedPage } from "../domain/authoring/plan.js";

// UpdateBranchContent's changes (proto) ↔ the domain's content changes.

function fieldsFrom(fields: ProtoPageFields | undefined): ContentPageFields {
  if (!fields) return {};
  const result: ContentPageFields = {};
  for (const name of ["title", "slug", "emoji", "icon", "description"] as const) if (fields[name] !== undefined) result[name] = fields[name];
  for (const name of ["hidden", "noIndex", "noRobotsIndex"] as const) if (fields[name] !== undefined) result[name] = fields[name];
  return result;
}

export function contentChangeFrom(change: ProtoContentChange, index: number): ContentChange {
  if (change.insertPage) {
    const insert = change.insertPage;
    return {
      kind: "insert_page",
      fields: fieldsFrom(insert.fields),
      intoPageId: insert.intoPageId || null,
      at: insert.at,
      ref: insert.ref,
      markdown: insert.markdown,
      documentJson: insert.documentJson === "" ? undefined : insert.documentJson,
    };
  }
  if (change.updatePage) {
    const update = change.updatePage;
    return {
      kind: "update_page",
      pageId: update.pageId,
      fields: fieldsFrom(update.fields),
      markdown: update.markdown,
      documentJson: update.documentJson,
      into: update.moveInto ? update.intoPageId || null : undefined,
      at: update.at,
    };
  }
  if (change.deletePage) return { kind: "delete_page", pageId: change.deletePage.pageId };
  if (change.revertPage)
    return { kind: "revert_page", pageId: change.revertPage.pageId, revisionId: change.revertPage.revisionId || null, blocks: change.revertPage.blocks };
  if (change.insertFiles) {
    const files = change.insertFiles.files.map((file, fileIndex): FileToInsert => {
      const source: FileToInsert["source"] | undefined =
        file.url !== undefined ? { kind: "url", url: file.url } : file.content !== undefined ? { kind: "bytes", bytes: file.content } : undefined;
      if (!source) throw AppError.invalidArgument(`changes[${index}].files[${fileIndex}]: give url or content`);
      return { ref: file.ref, name: file.name, contentType: file.contentType, source };
    });
    return { kind: "insert_files", files };
  }
  throw AppError.invalidArgument(`changes[${index}]: must be one of insert_page, update_page, delete_page, revert_page, insert_files`);
}

const KIND: Record<AffectedPage["kind"], AffectedPageKind> = {
  created: AffectedPageKind.AFFECTED_PAGE_KIND_CREATED,
  updated: AffectedPageKind.AFFECTED_PAGE_KIND_UPDATED,
  deleted: AffectedPageKind.AFFECTED_PAGE_KIND_DELETED,
};

export function affectedPageToProto(page: AffectedPage): ProtoAffectedPage {
  return { pageId: page.pageId, kind: KIND[page.kind], ref: page.ref };
}
