import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceReadAccess } from "../../spaces/index.js";
import type { GitSync } from "../domain/git-sync.js";
import { findSync } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/**
 * The space's Git sync state (repository without credentials, ref, last commit, last operation).
 * Needs view rights; a space never imported from nor exported to Git answers not_found.
 */
export async function getSpaceGitInfo(em: EntityManager, input: { caller: CallerInput | undefined; spaceId: string }, deps: GitDeps): Promise<GitSync> {
  const caller = requireCaller(input.caller);
  const { space } = await requireSpaceReadAccess(em, deps, { caller, spaceId: input.spaceId, need: "view" });
  const sync = await findSync(em, space.id);
  if (!sync) throw new AppError("not_found", "Git sync: this space was never imported from or exported to a Git repository");
  return sync;
}
