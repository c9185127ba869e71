import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, textProblem } from "@imprint/runtime";
import type { CallerInput } from "../../access/index.js";
import type { FileRecord } from "../store/model.js";
import type { RevisionDeps } from "./deps.js";
import { openContent, type ContentRefInput } from "./open-content.js";

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export interface FileList {
  files: FileRecord[];
  nextPageToken: string;
  totalCount: number;
}

/** Opaque keyset token: the last file id of the previous page, marked as a token of this list. */
function encodeToken(fileId: string): string {
  return Buffer.from(JSON.stringify({ f: fileId, r: "files" }), "utf8").toString("base64url");
}

function decodeToken(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { f?: unknown; r?: unknown };
    if (parsed.r === "files" && typeof parsed.f === "string" && parsed.f.length <= 64 && textProblem(parsed.f) === undefined) return parsed.f;
  } catch {
    // falls through to the error below
  }
  throw AppError.invalidArgument("page: not a valid page token for this list");
}

/** The files of a revision, in id order, one page at a time. */
export async function listFiles(
  em: EntityManager,
  input: { caller: CallerInput | undefined; ref: ContentRefInput | undefined; pageToken: string; pageSize: number },
  deps: RevisionDeps,
): Promise<FileList> {
  const pageSize = input.pageSize === 0 ? DEFAULT_PAGE_SIZE : input.pageSize;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw AppError.invalidArgument(`limit: must be an integer between 1 and ${MAX_PAGE_SIZE}`);
  const after = input.pageToken === "" ? undefined : decodeToken(input.pageToken);
  const { view } = await openContent(em, deps, input);
  const page = await view.filePage(after, pageSize);
  const last = page.files[page.files.length - 1];
  return { files: page.files, totalCount: page.total, nextPageToken: page.hasMore && last ? encodeToken(last.fileId) : "" };
}
