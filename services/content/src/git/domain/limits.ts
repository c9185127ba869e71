/** Bounds of one Git import or export; each answers a 4xx naming it when reached. */
export interface GitLimits {
  /** Bytes the fetched repository (its packed objects at the ref, history depth 1) may take. */
  maxRepositoryBytes: number;
  /** Files (blobs) in the tree at the ref. */
  maxFiles: number;
  /** Bytes of one file read from the tree (markdown or asset). */
  maxFileBytes: number;
  /** Pages of the content (imported or exported). */
  maxPages: number;
  /** Bytes of one page's markdown file. */
  maxMarkdownBytes: number;
  /** Wall-clock budget of each git process (fetch, push). */
  maxDurationMs: number;
}

export const DEFAULT_GIT_LIMITS: GitLimits = {
  maxRepositoryBytes: 100 * 1024 * 1024,
  maxFiles: 20_000,
  maxFileBytes: 50 * 1024 * 1024,
  maxPages: 5_000,
  maxMarkdownBytes: 2 * 1024 * 1024,
  maxDurationMs: 120_000,
};
