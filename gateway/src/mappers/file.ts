import type { File } from "@imprint/proto/content/v1/revisions";

/** GitBook's `RevisionFile`: `downloadURL` is the content service's signed, expiring URL on this API. */
export interface RestFile {
  id: string;
  name: string;
  contentType: string;
  downloadURL: string;
  size: number;
  dimensions?: { width: number; height: number };
  git?: { oid: string; path: string };
}

export function toRestFile(file: File): RestFile {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: file.downloadUrl,
    size: Number(file.size),
    ...(file.width > 0 && file.height > 0 ? { dimensions: { width: file.width, height: file.height } } : {}),
    ...(file.git ? { git: { oid: file.git.oid, path: file.git.path } } : {}),
  };
}
