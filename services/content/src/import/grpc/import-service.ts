import { ImportServiceService } from "@imprint/proto/content/v1/import";
import { forkEm, pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { MikroORM } from "@mikro-orm/postgresql";
import type { ImportRunDeps } from "../../deps.js";
import { cancelImportRun } from "../use-cases/cancel-import-run.js";
import { getImportRun } from "../use-cases/get-import-run.js";
import { importContent } from "../use-cases/import-content.js";
import { listImportRuns } from "../use-cases/list-import-runs.js";
import { startImportRun } from "../use-cases/start-import-run.js";
import { importRunToProto, statusesFromProto } from "./mappers.js";

export const IMPORT_SERVICE_NAME = "imprint.content.v1.ImportService";

/** Thin transport: one use case on a fresh EntityManager, its result mapped to the response. */
export function importServiceImplementation(orm: MikroORM, deps: ImportRunDeps): AsyncImplementation<typeof ImportServiceService> {
  return {
    importContent: async (request) => {
      const result = await importContent(
        forkEm(orm),
        { caller: request.caller, ref: request.ref, url: request.url, source: request.source, underPageId: request.underPageId },
        deps,
      );
      return { revisionId: result.revisionId, importedResources: result.importedResources, totalResources: result.totalResources };
    },

    startImportRun: async (request) => {
      const run = await startImportRun(
        forkEm(orm),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          underPageId: request.underPageId,
          source: request.source,
          url: request.url,
        },
        deps,
      );
      return { run: importRunToProto(run) };
    },

    listImportRuns: async (request) => {
      const page = await listImportRuns(
        forkEm(orm),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          spaceId: request.spaceId,
          changeRequestId: request.changeRequestId,
          statuses: statusesFromProto(request.statuses),
          page: pageRequest(request.page),
        },
        deps,
      );
      return { runs: page.items.map(importRunToProto), page: pageInfo(page) };
    },

    getImportRun: async (request) => {
      const run = await getImportRun(forkEm(orm), { caller: request.caller, organizationId: request.organizationId, importRunId: request.importRunId }, deps);
      return { run: importRunToProto(run) };
    },

    cancelImportRun: async (request) => {
      const run = await cancelImportRun(
        forkEm(orm),
        { caller: request.caller, organizationId: request.organizationId, importRunId: request.importRunId },
        deps,
      );
      return { run: importRunToProto(run) };
    },
  };
}
