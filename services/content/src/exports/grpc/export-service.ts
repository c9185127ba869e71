import { AppError, forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { ExportServiceService } from "@imprint/proto/content/v1/exports";
import type { MikroORM } from "@mikro-orm/postgresql";
import { contentRefFromProto } from "../../revisions/index.js";
import { exportPdf } from "../use-cases/export-pdf.js";
import { readExportContent } from "../use-cases/read-export-content.js";
import type { RevisionDeps } from "../../deps.js";

export const EXPORT_SERVICE_NAME = "imprint.content.v1.ExportService";

/** Thin transport: one use case per call on a fresh EntityManager. */
export function exportServiceImplementation(orm: MikroORM, deps: RevisionDeps): AsyncImplementation<typeof ExportServiceService> {
  const em = () => forkEm(orm);
  return {
    exportPdf: async (request) => {
      const exported = await exportPdf(
        em(),
        { caller: request.caller, ref: contentRefFromProto(request.ref), pageId: request.pageId, only: request.only },
        deps,
      );
      return { url: exported.url, expiresAt: exported.expiresAt, size: String(exported.size) };
    },

    readExportContent: async (request) => {
      const expires = Number(request.expires);
      if (!Number.isSafeInteger(expires)) throw AppError.invalidArgument("expires: must be a Unix time in seconds");
      const exported = await readExportContent(em(), { exportId: request.exportId, expires, signature: request.signature }, deps);
      return { content: exported.content, contentType: exported.contentType, name: exported.name };
    },
  };
}
