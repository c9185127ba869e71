import { AppError } from "@imprint/runtime/core";
import { z } from "zod";
import { importRunLocation, STATUS_FILTERS, toRestImportRun } from "../mappers/import-run.js";
import { pageQueryShape, toPageRequest, toPagedList } from "../pagination.js";
import { created, defineRoute, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const runParams = z.object({ organizationId: pathId(), importRunId: pathId() });

/**
 * startImportRun's body. Which source types exist (`website`; GitBook's `file` is refused) and
 * what a fetchable URL is, the content service decides. Runs into a site are not supported: `site` is refused.
 * `enhance` (GitBook's AI rewrite of the imported content) is accepted and has no effect.
 */
export const startImportRunBody = z.object({
  source: z.object({ type: z.string().min(1).max(64), url: z.string().optional(), files: z.array(z.string()).optional() }),
  target: z.object({ space: pathId(), changeRequest: pathId().optional(), page: pathId().optional() }),
  site: z.string().optional(),
  enhance: z.boolean().optional(),
});

const listQuery = z.object({
  space: queryParam.string(128).optional(),
  changeRequest: queryParam.string(128).optional(),
  site: queryParam.string(128).optional(),
  status: z.enum(["active", "pending", "in-progress", "completed", "failed", "cancelled"]).optional(),
  ...pageQueryShape,
});

const NO_SITES = "import runs into a site are not supported; leave it out";

/**
 * Import runs of an organization (`/v1/org/{organizationId}/imports`): started at once (201,
 * pending) and executed in the background by the content service; read, listed (most recent
 * first, with GitBook's filters) and cancelled.
 */
export function importRunRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const imports = upstreams.content.import;
  return [
    // listImportRuns
    defineRoute({
      method: "GET",
      path: "/v1/org/:organizationId/imports",
      params: organizationParams,
      query: listQuery,
      handler: async ({ params, query, principal, cursors }) => {
        if (query.site !== undefined) throw AppError.invalidArgument(`site: ${NO_SITES}`);
        const response = await imports.listImportRuns({
          caller: principal.caller,
          organizationId: params.organizationId,
          spaceId: query.space ?? "",
          changeRequestId: query.changeRequest ?? "",
          statuses: query.status ? STATUS_FILTERS[query.status] : [],
          page: toPageRequest(query, cursors),
        });
        return ok(
          toPagedList(
            response.runs.map((run) => toRestImportRun(run, urls)),
            response.page,
            cursors,
          ),
        );
      },
    }),

    // startImportRun: 201 with the pending run.
    defineRoute({
      method: "POST",
      path: "/v1/org/:organizationId/imports",
      params: organizationParams,
      body: startImportRunBody,
      handler: async ({ params, body, principal }) => {
        if (body.site !== undefined) throw AppError.invalidArgument(`site: ${NO_SITES}`);
        const response = await imports.startImportRun({
          caller: principal.caller,
          organizationId: params.organizationId,
          spaceId: body.target.space,
          changeRequestId: body.target.changeRequest ?? "",
          underPageId: body.target.page ?? "",
          source: body.source.type,
          url: body.source.url ?? "",
        });
        const run = toRestImportRun(response.run, urls);
        return created(run, importRunLocation(urls, params.organizationId, run.id));
      },
    }),

    // getImportRun
    defineRoute({
      method: "GET",
      path: "/v1/org/:organizationId/imports/:importRunId",
      params: runParams,
      handler: async ({ params, principal }) => {
        const response = await imports.getImportRun({ caller: principal.caller, organizationId: params.organizationId, importRunId: params.importRunId });
        return ok(toRestImportRun(response.run, urls));
      },
    }),

    // cancelImportRun: 200 with the cancelled run; 400 for a run that already ended.
    defineRoute({
      method: "POST",
      path: "/v1/org/:organizationId/imports/:importRunId/cancel",
      params: runParams,
      handler: async ({ params, principal }) => {
        const response = await imports.cancelImportRun({ caller: principal.caller, organizationId: params.organizationId, importRunId: params.importRunId });
        return ok(toRestImportRun(response.run, urls));
      },
    }),
  ];
}
