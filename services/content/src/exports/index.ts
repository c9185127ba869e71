import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import type { ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { EXPORT_SERVICE_NAME, exportServiceImplementation } from "./grpc/export-service.js";
import type { RevisionDeps } from "../deps.js";

/**
 * Exports: content rendered to PDF, kept in the blob store behind signed download URLs that
 * expire after an hour; expired exports are swept by the content service's periodic job. See
 * docs/exports.md.
 */

export { exportEntities } from "./domain/entities.js";
export { deleteExpiredExports } from "./use-cases/delete-expired-exports.js";
export { exportSweepJob, EXPORT_SWEEP_JOB } from "./jobs/export-sweep.js";
export { EXPORT_SERVICE_NAME };

/** The gRPC service of exports (ExportService). */
export function exportGrpcServices(orm: MikroORM, revision: RevisionDeps): ServiceRegistration[] {
  return [{ name: EXPORT_SERVICE_NAME, definition: ExportServiceService, implementation: exportServiceImplementation(orm, revision) }] as ServiceRegistration[];
}
