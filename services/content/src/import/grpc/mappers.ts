import { ImportRunStatus as ProtoStatus, type ImportRun as ImportRunMessage } from "@imprint/proto/content/v1/import";
import { AppError } from "@imprint/runtime";
import type { ImportRun, ImportRunStatus } from "../domain/import-run.js";

const STATUS_TO_PROTO: Record<ImportRunStatus, ProtoStatus> = {
  pending: ProtoStatus.IMPORT_RUN_STATUS_PENDING,
  "in-progress": ProtoStatus.IMPORT_RUN_STATUS_IN_PROGRESS,
  completed: ProtoStatus.IMPORT_RUN_STATUS_COMPLETED,
  failed: ProtoStatus.IMPORT_RUN_STATUS_FAILED,
  cancelled: ProtoStatus.IMPORT_RUN_STATUS_CANCELLED,
};
const STATUS_FROM_PROTO = new Map<number, ImportRunStatus>(Object.entries(STATUS_TO_PROTO).map(([status, value]) => [value, status as ImportRunStatus]));

/** A list filter's statuses; anything else is invalid_argument naming `statuses`. */
export function statusesFromProto(statuses: readonly number[]): ImportRunStatus[] {
  return statuses.map((value) => {
    const status = STATUS_FROM_PROTO.get(value);
    if (!status) throw AppError.invalidArgument("statuses: must be pending, in-progress, completed, failed or cancelled");
    return status;
  });
}

export function importRunToProto(run: ImportRun): ImportRunMessage {
  return {
    id: run.id,
    organizationId: run.organizationId,
    spaceId: run.spaceId,
    changeRequestId: run.changeRequestId ?? "",
    underPageId: run.underPageId ?? "",
    source: run.source,
    url: run.url,
    status: STATUS_TO_PROTO[run.status as ImportRunStatus],
    reason: run.reason ?? "",
    createdBy: run.createdBy,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    startedAt: run.startedAt ?? undefined,
    finishedAt: run.finishedAt ?? undefined,
    pagesFetched: run.pagesFetched,
    pagesFailed: run.pagesFailed,
    filesFetched: run.filesFetched,
    importedResources: run.importedResources,
    totalResources: run.totalResources,
    revisionId: run.revisionId ?? "",
    pages: run.pages.map((page) => ({ pageId: page.pageId, sourceUrl: page.sourceUrl, complete: page.complete })),
  };
}
