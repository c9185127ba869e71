import { ImportServiceService } from "@imprint/proto/content/v1/import";
import type { ServiceRegistration } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from "./domain/limits.js";
import { IMPORT_SERVICE_NAME, importServiceImplementation } from "./grpc/import-service.js";
import { safeFetchPolicy } from "./domain/safe-fetch.js";
import type { ContentDeps, ImportDeps, RevisionDeps } from "../deps.js";

/**
 * Imports into a space's content (today: websites). Fetches go through safe-fetch.ts; the
 * content is written through the revision store's editing use cases. See docs/revisions.md § Import.
 */

export { IMPORT_SERVICE_NAME };
export { importContent, type ImportContentInput, type ImportResult } from "./use-cases/import-content.js";
export { DEFAULT_IMPORT_LIMITS, type ImportLimits };
export type { ImportDeps };
export { safeFetch, safeFetchPolicy, refusedAddressReason, SafeFetchError, type SafeFetchPolicy } from "./domain/safe-fetch.js";

/** The import use case's dependencies, from the content service's. */
export function importDeps(deps: ContentDeps, revision: RevisionDeps, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportDeps {
  return {
    ...revision,
    fetchPolicy: safeFetchPolicy({ allowPrivateAddresses: deps.config.IMPRINT_ALLOW_PRIVATE_FETCH }),
    limits,
  };
}

/** The gRPC service of imports (ImportService). */
export function importGrpcServices(orm: MikroORM, imports: ImportDeps): ServiceRegistration[] {
  return [
    { name: IMPORT_SERVICE_NAME, definition: ImportServiceService, implementation: importServiceImplementation(orm, imports) },
  ];
}
