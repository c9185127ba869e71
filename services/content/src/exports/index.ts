import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import type { ServiceRegistration } from "@imprint/runtime";
import { revisionDeps } from "../revisions/index.js";
import type { ContentDeps } from "../service.js";
import { EXPORT_SERVICE_NAME, exportServiceImplementation } from "./grpc/export-service.js";

/**
 * Exports: content rendered to PDF, kept in the blob store behind signed download URLs that
 * expire after an hour; expired exports are swept by the content service's periodic job. See
 * docs/exports.md.
 */

export { exportEntities } from "./entities.js";
export { deleteExpiredExports } from "./use-cases/delete-expired-exports.js";
export { EXPORT_SERVICE_NAME };

/** The gRPC service of exports (ExportService). */
export function exportGrpcServices(deps: ContentDeps): ServiceRegistration[] {
  return [{ name: EXPORT_SERVICE_NAME, definition: ExportServiceService, implementation: exportServiceImplementation(deps.orm, revisionDeps(deps)) }] as ServiceRegistration[];
}
