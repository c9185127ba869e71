import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { requireOrganizationMembership, type CallerInput, type SpacePermissions } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import { ImportRun } from "../domain/import-run.js";
import type { UseCaseDeps } from "../../deps.js";

export interface GetImportRunInput {
  caller: CallerInput | undefined;
  organizationId: string;
  importRunId: string;
}

/**
 * The organization's run if the caller can view its target space ("Import run not found"
 * otherwise, like a run that does not exist), and may `need` on it (permission_denied otherwise).
 */
export async function requireImportRun(em: EntityManager, input: GetImportRunInput, deps: UseCaseDeps, need: keyof SpacePermissions): Promise<ImportRun> {
  await requireOrganizationMembership(deps, input.organizationId, input.caller);
  if (!isId(input.importRunId)) throw AppError.notFound("Import run");
  const run = await em.findOne(ImportRun, { id: input.importRunId, organizationId: input.organizationId });
  if (!run) throw AppError.notFound("Import run");
  try {
    await requireSpaceAccess(em, deps, { caller: input.caller, spaceId: run.spaceId, need });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw AppError.notFound("Import run");
    throw error;
  }
  return run;
}

/** One import run of the organization, for a caller who can view its target space. */
export async function getImportRun(em: EntityManager, input: GetImportRunInput, deps: UseCaseDeps): Promise<ImportRun> {
  return requireImportRun(em, input, deps, "view");
}
