import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceReadAccess } from "../../spaces/index.js";
import type { GitSync } from "../domain/git-sync.js";
import { findSync } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/** A connected space's sync state and connection (never its secrets). Needs view rights; a space not connected answers not_found. */
export async function getGitSyncConnection(em: EntityManager, input: { caller: CallerInput | undefined; spaceId: string }, deps: GitDeps): Promise<GitSync> {
  const caller = requireCaller(input.caller);
  const { space } = await requireSpaceReadAccess(em, deps, { caller, spaceId: input.spaceId, need: "view" });
  const sync = await findSync(em, space.id);
  if (!sync?.connection) throw new AppError("not_found", "Git sync: this space is not connected to a repository");
  return sync;
}
