import type { EntityManager } from "@mikro-orm/postgresql";
import { encodePageToken, readPageRequest, type PageRequestLike } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { FileRecord } from "../domain/tree/model.js";
import { openContent, type ContentRefInput } from "./shared/open-content.js";
import type { RevisionDeps } from "../../deps.js";

export interface FileList {
  files: FileRecord[];
  nextPageToken: string;
  totalCount: number;
}

/** Tokens of this list carry the last file id of the previous page. */
const FILES_LIST = "files";

/** The files of a revision, in id order, one page at a time. */
export async function listFiles(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; page: PageRequestLike | undefined },
  deps: RevisionDeps,
): Promise<FileList> {
  const cursor = readPageRequest(input.page, FILES_LIST, ["string"]);
  const { view } = await openContent(em, deps, input);
  const page = await view.filePage(cursor.after?.[0] as string | undefined, cursor.pageSize);
  const last = page.files[page.files.length - 1];
  return { files: page.files, totalCount: page.total, nextPageToken: page.hasMore && last ? encodePageToken(FILES_LIST, [last.fileId]) : "" };
}
