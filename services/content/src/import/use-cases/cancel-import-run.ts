import type { EntityManager } from "@mikro-orm/postgresql";
import { findOwned } from "@imprint/runtime";
import { ImportRun } from "../domain/import-run.js";
import { requireImportRun, type GetImportRunInput } from "./get-import-run.js";
import type { UseCaseDeps } from "../../deps.js";

/**
 * Cancels a run, for a caller with edit rights on its target space: a pending run never starts;
 * a run in progress stops at its worker's next checkpoint and writes nothing (its commit takes the
 * run's row and needs it still in progress, so a cancel either comes before the commit, or finds
 * the run completed). A run that already ended answers invalid_argument.
 */
export async function cancelImportRun(em: EntityManager, input: GetImportRunInput, deps: UseCaseDeps): Promise<ImportRun> {
  const found = await requireImportRun(em, input, deps, "edit");
  return deps.unitOfWork.run(em, async (tx) => {
    const run = await findOwned(tx, ImportRun, {}, found.id, { lock: true, refresh: true });
    run.cancel(deps.clock());
    return run;
  });
}
