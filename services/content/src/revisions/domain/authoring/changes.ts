import { AppError, parseFetchableUrl, SafeFetchError } from "@imprint/runtime";
import { contentIdFrom, invalid } from "../editing/page-input.js";

/**
 * GitBook's change request content changes (updateChangeRequestContent), validated: the batch
 * and each change's own rules. How they become page operations is plan.ts.
 */

export const CONTENT_CHANGE_LIMITS = {
  /** Changes in one batch. */
  changes: 50,
  /** Files in one insert_files change. */
  files: 20,
  /** Bytes of a file given inline (base64 over REST). */
  inlineFileBytes: 1024 * 1024,
  /** Bytes of a file fetched from its URL. */
  fetchedFileBytes: 10 * 1024 * 1024,
  /** Characters of a batch-local ref. */
  ref: 256,
} as const;

/** Page fields a change sets; undefined keeps the value. */
export interface ContentPageFields {
  title?: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
}

export interface FileToInsert {
  ref: string;
  name: string;
  /** Empty: the fetched response's type (required with bytes). */
  contentType: string;
  source: { kind: "url"; url: string } | { kind: "bytes"; bytes: Uint8Array };
}

export type ContentChange =
  | {
      kind: "insert_page";
      fields: ContentPageFields;
      intoPageId: string | null;
      at: number | undefined;
      ref: string;
      markdown: string;
      /** The body as GitBook's JSON document (JSON text) instead of markdown. */
      documentJson: string | undefined;
    }
  | {
      kind: "update_page";
      pageId: string;
      fields: ContentPageFields;
      markdown: string | undefined;
      /** The new body as GitBook's JSON document (JSON text) instead of markdown. */
      documentJson: string | undefined;
      /** undefined: the parent stays; null: the top level. */
      into: string | null | undefined;
      at: number | undefined;
    }
  | { kind: "delete_page"; pageId: string }
  | { kind: "revert_page"; pageId: string; revisionId: string | null; blocks: string[] }
  | { kind: "insert_files"; files: FileToInsert[] };

/** `changes[3].page` and the like. */
export const changeField = (index: number) => (name: string) => `changes[${index}].${name}`;

function validateAt(at: number | undefined, field: string): void {
  if (at !== undefined && (!Number.isInteger(at) || at < 0)) throw invalid(field, "must be an integer of at least 0");
}

function validateRef(ref: string, field: string, refs: Set<string>): void {
  if (ref === "") return;
  if (ref.length > CONTENT_CHANGE_LIMITS.ref) throw invalid(field, `must be at most ${CONTENT_CHANGE_LIMITS.ref} characters`);
  if (ref.includes("/") || ref.includes("#") || ref.startsWith(".")) throw invalid(field, 'must not contain "/" or "#" nor start with "."');
  if (refs.has(ref)) throw invalid(field, `"${ref}" is already used by another ref of the batch`);
  refs.add(ref);
}

/**
 * The batch's own rules: 1 to 50 changes, ids of the right shape, refs unique in the batch, 1 to
 * 20 files per insert_files with exactly one source, inline bytes at most 1 MiB with their type,
 * block-level revert refused (documents carry no stable block keys). Page fields are checked by
 * the page rules as the changes are planned.
 */
export function validateContentChanges(changes: ContentChange[]): void {
  if (changes.length < 1 || changes.length > CONTENT_CHANGE_LIMITS.changes) {
    throw AppError.invalidArgument(`changes: must hold 1 to ${CONTENT_CHANGE_LIMITS.changes} changes, got ${changes.length}`);
  }
  const refs = new Set<string>();
  changes.forEach((change, index) => {
    const field = changeField(index);
    switch (change.kind) {
      case "insert_page":
        if (change.intoPageId !== null) contentIdFrom(change.intoPageId, field("into"));
        validateAt(change.at, field("at"));
        validateRef(change.ref, field("ref"), refs);
        break;
      case "update_page":
        contentIdFrom(change.pageId, field("page"));
        if (change.into) contentIdFrom(change.into, field("into"));
        validateAt(change.at, field("at"));
        break;
      case "delete_page":
        contentIdFrom(change.pageId, field("page"));
        break;
      case "revert_page":
        contentIdFrom(change.pageId, field("page"));
        if (change.blocks.length > 0) {
          throw invalid(field("block"), "block-level revert is not supported (documents have no stable block keys); revert the whole page");
        }
        break;
      case "insert_files":
        if (change.files.length < 1 || change.files.length > CONTENT_CHANGE_LIMITS.files) {
          throw invalid(field("files"), `must hold 1 to ${CONTENT_CHANGE_LIMITS.files} files`);
        }
        change.files.forEach((file, fileIndex) => {
          const fileField = (name: string) => field(`files[${fileIndex}].${name}`);
          validateRef(file.ref, fileField("ref"), refs);
          if (file.source.kind === "bytes") {
            if (file.contentType.trim() === "") throw invalid(fileField("contentType"), "is required with base64");
            if (file.source.bytes.byteLength > CONTENT_CHANGE_LIMITS.inlineFileBytes) throw invalid(fileField("base64"), "must decode to at most 1 MiB");
          } else {
            try {
              parseFetchableUrl(file.source.url);
            } catch (error) {
              if (error instanceof SafeFetchError) throw invalid(fileField("url"), error.reason);
              throw error;
            }
          }
        });
        break;
    }
  });
}
