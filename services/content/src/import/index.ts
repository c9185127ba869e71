import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { safeFetchPolicy, type JobSpec, type ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./domain/limits.js";
import { DEFAULT_IMPORT_RUN_LIMITS, IMPORT_RUNS_JOB, importRunEntities, type ImportRunLimits } from "./domain/import-run.js";
import { IMPORT_SERVICE_NAME, importServiceImplementation } from "./grpc/import-service.js";
import { importRunsJob } from "./jobs/import-runs.js";
import type { ContentDeps, ImportDeps, ImportRunDeps, RevisionDeps } from "../deps.js";

/**
 * Imports into a space's content (today: websites), synchronously (ImportContent) or as import
 * runs done in the background by the import-runs job; both share one implementation
 * (use-cases/import-content.ts). Fetches go through the runtime's safe-fetch; the content is written through
 * the revision store's editing use cases. See docs/revisions.md § Import.
 */

export { IMPORT_SERVICE_NAME, IMPORT_RUNS_JOB, importRunEntities };
export { importContent, type ImportContentInput, type ImportResult } from "./use-cases/import-content.js";
export { DEFAULT_IMPORT_LIMITS, DEFAULT_IMPORT_RUN_LIMITS, type ImportLimits, type ImportRunLimits };
export type { ImportDeps, ImportRunDeps };

/** The import's dependencies (the synchronous import's and the runs'), from the content service's. */
export function importDeps(
  deps: ContentDeps,
  revision: RevisionDeps,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
  runLimits: ImportRunLimits = {
    ...DEFAULT_IMPORT_RUN_LIMITS,
    concurrency: deps.config.IMPORT_RUN_CONCURRENCY,
    maxInterruptions: deps.config.IMPORT_RUN_MAX_INTERRUPTIONS,
  },
): ImportRunDeps {
  return {
    ...revision,
    fetchPolicy: safeFetchPolicy(
      { allowPrivateAddresses: deps.config.IMPRINT_ALLOW_PRIVATE_FETCH, service: "content", dnsServers: deps.config.IMPRINT_FETCH_DNS_SERVERS },
      { userAgent: "Imprint-Import/1.0 (+https://github.com/imprint)" },
    ),
    limits,
    orm: deps.orm,
    jobs: deps.jobs,
    runLimits,
  };
}

/** The gRPC service of imports (ImportService). */
export function importGrpcServices(orm: MikroORM, imports: ImportRunDeps): ServiceRegistration[] {
  return [{ name: IMPORT_SERVICE_NAME, definition: ImportServiceService, implementation: importServiceImplementation(orm, imports) }];
}

/** The background job executing import runs (the content service runs it through the runtime's job runner). */
export function importJob(imports: ImportRunDeps): JobSpec {
  return importRunsJob({ ...imports, logger: imports.logger.child({ component: "import-runs" }) });
}

/** What the other modules use. */
export { slugOf } from "./domain/build-tree.js";
export { purgeImportRuns } from "./store/import-runs.js";
