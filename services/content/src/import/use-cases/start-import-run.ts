import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireFetchTarget } from "@imprint/runtime";
import { requireCaller, requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { IMPORT_RUNS_JOB, ImportRun } from "../domain/import-run.js";
import { requireImportTarget, validateImportSource } from "./import-content.js";
import type { ImportDeps, ImportRunDeps } from "../../deps.js";

export interface StartImportRunInput {
  caller: CallerInput | undefined;
  organizationId: string;
  spaceId: string;
  /** Id or number; empty for the space's own content. */
  changeRequestId: string;
  /** Empty: the top level. */
  underPageId: string;
  source: string;
  url: string;
}

/**
 * Queues an import run and answers it, pending; the import-runs job executes it (woken at once on
 * this replica). The checks of the synchronous import happen here, before anything is queued:
 * the source (website only) and its URL's shape, edit rights on the target space of this
 * organization, a change request that is not merged, a page that exists, and a URL whose host is
 * not a private address (the fetch guard's rule). The URL is fetched by the run: a source that
 * cannot be fetched then fails the run, with the reason.
 */
export async function startImportRun(em: EntityManager, input: StartImportRunInput, deps: ImportDeps & Pick<ImportRunDeps, "jobs">): Promise<ImportRun> {
  const caller = requireCaller(input.caller);
  await requireOrganizationMembership(deps, input.organizationId, caller);
  if (input.spaceId === "") throw AppError.invalidArgument("target.space: is required");
  const url = validateImportSource(input, { source: "source.type", url: "source.url" });
  const target = { spaceId: input.spaceId, changeRequestId: input.changeRequestId, underPageId: input.underPageId || null };
  const { organizationId, changeRequestId } = await requireImportTarget(em, deps, caller, target, "target.changeRequest");
  // A space of another organization the caller also belongs to is not this organization's.
  if (organizationId !== input.organizationId) throw AppError.notFound("Space");
  // The run fetches it later: a private target is refused now, where the caller sees why.
  await requireFetchTarget(url.toString(), deps.fetchPolicy, "source.url");

  const now = deps.clock();
  const run = await deps.unitOfWork.run(em, async (tx) =>
    tx.create(ImportRun, {
      organizationId,
      spaceId: target.spaceId,
      changeRequestId: changeRequestId || null,
      underPageId: target.underPageId,
      source: input.source,
      url: url.toString(),
      status: "pending",
      pages: [],
      createdBy: caller.userId,
      createdByTokenId: caller.tokenId || null,
      createdAt: now,
      updatedAt: now,
    }),
  );
  deps.jobs.wake(IMPORT_RUNS_JOB);
  return run;
}
