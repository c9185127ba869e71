import { ImportRunStatus, type ImportRun } from "@imprint/proto/content/v1/import";
import { AppError } from "@imprint/runtime/core";
import type { PublicUrls } from "./urls.js";

type RestStatus = "pending" | "in-progress" | "completed" | "failed" | "cancelled";

/** GitBook's ContentImportRun, plus Imprint's `progress` counts (an addition GitBook's schema allows). */
export interface RestImportRun {
  object: "import-run";
  id: string;
  status: RestStatus;
  reason?: string;
  source: { type: string; url: string };
  target: { space: string; changeRequest?: string; page?: string };
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  completedAt?: string;
  urls: { location: string };
  pages: { id: string; sourceURL: string; type: "page"; status: "complete" | "pending" }[];
  progress: { pagesFetched: number; pagesFailed: number; filesFetched: number; importedResources: number; totalResources: number; revision?: string };
}

const STATUSES: Partial<Record<ImportRunStatus, RestStatus>> = {
  [ImportRunStatus.IMPORT_RUN_STATUS_PENDING]: "pending",
  [ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS]: "in-progress",
  [ImportRunStatus.IMPORT_RUN_STATUS_COMPLETED]: "completed",
  [ImportRunStatus.IMPORT_RUN_STATUS_FAILED]: "failed",
  [ImportRunStatus.IMPORT_RUN_STATUS_CANCELLED]: "cancelled",
};

/** listImportRuns' `status` filter: `active` is pending and in progress. */
export const STATUS_FILTERS: Record<"active" | RestStatus, ImportRunStatus[]> = {
  active: [ImportRunStatus.IMPORT_RUN_STATUS_PENDING, ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS],
  pending: [ImportRunStatus.IMPORT_RUN_STATUS_PENDING],
  "in-progress": [ImportRunStatus.IMPORT_RUN_STATUS_IN_PROGRESS],
  completed: [ImportRunStatus.IMPORT_RUN_STATUS_COMPLETED],
  failed: [ImportRunStatus.IMPORT_RUN_STATUS_FAILED],
  cancelled: [ImportRunStatus.IMPORT_RUN_STATUS_CANCELLED],
};

/** API URL of an import run (also its `Location` when started). */
export function importRunLocation(urls: PublicUrls, organizationId: string, importRunId: string): string {
  return `${urls.api}/v1/org/${encodeURIComponent(organizationId)}/imports/${encodeURIComponent(importRunId)}`;
}

/**
 * GitBook's ContentImportRun: `completedAt` only when completed, `reason` only when failed; the
 * pages appear once the site was crawled (pending), complete once the run committed.
 */
export function toRestImportRun(run: ImportRun | undefined, urls: PublicUrls): RestImportRun {
  if (!run) throw new AppError("internal", "upstream answered without an import run");
  const status = STATUSES[run.status];
  if (!status) throw new AppError("internal", `upstream answered an unknown import run status ${run.status}`);
  const rest: RestImportRun = {
    object: "import-run",
    id: run.id,
    status,
    source: { type: run.source, url: run.url },
    target: { space: run.spaceId },
    createdBy: run.createdBy,
    createdAt: (run.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (run.updatedAt ?? new Date(0)).toISOString(),
    urls: { location: importRunLocation(urls, run.organizationId, run.id) },
    pages: run.pages.map((page) => ({ id: page.pageId, sourceURL: page.sourceUrl, type: "page", status: page.complete ? "complete" : "pending" })),
    progress: {
      pagesFetched: run.pagesFetched,
      pagesFailed: run.pagesFailed,
      filesFetched: run.filesFetched,
      importedResources: run.importedResources,
      totalResources: run.totalResources,
    },
  };
  if (run.changeRequestId) rest.target.changeRequest = run.changeRequestId;
  if (run.underPageId) rest.target.page = run.underPageId;
  if (status === "failed" && run.reason) rest.reason = run.reason;
  if (run.startedAt) rest.startedAt = run.startedAt.toISOString();
  if (status === "completed" && run.finishedAt) rest.completedAt = run.finishedAt.toISOString();
  if (run.revisionId) rest.progress.revision = run.revisionId;
  return rest;
}
