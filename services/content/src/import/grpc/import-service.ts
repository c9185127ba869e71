import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ImportDeps } from "../../deps.js";
import { importContent } from "../use-cases/import-content.js";

export const IMPORT_SERVICE_NAME = "imprint.content.v1.ImportService";

/** Thin transport: one use case on a fresh EntityManager, its result mapped to the response. */
export function importServiceImplementation(orm: MikroORM, deps: ImportDeps): AsyncImplementation<typeof ImportServiceService> {
  return {
    importContent: async (request) => {
      const result = await importContent(
        forkEm(orm),
        { caller: request.caller, ref: request.ref, url: request.url, source: request.source, underPageId: request.underPageId },
        deps,
      );
      return { revisionId: result.revisionId, importedResources: result.importedResources, totalResources: result.totalResources };
    },
  };
}
