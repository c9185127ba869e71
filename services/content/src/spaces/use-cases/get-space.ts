import type { EntityManager } from "@mikro-orm/postgresql";
import { requireSpaceAccess, type CallerInput } from "./shared/access.js";
import { findSync } from "../../git/use-cases/shared/sync-state.js";
import type { GitSync } from "../../git/domain/git-sync.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface GetSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /**
   * GitBook's `shareKey` resolves published URLs of share-link sites. Sites do not exist yet, so it
   * is accepted and ignored: it grants nothing and changes nothing in the answer.
   */
  shareKey: string;
}

/** A space the caller can view (deleted spaces are not found), with its Git sync state when it has one. */
export async function getSpace(em: EntityManager, input: GetSpaceInput, deps: SpaceDeps): Promise<SpaceView & { gitSync: GitSync | null }> {
  const { space, permissions } = await requireSpaceAccess(em, deps, { caller: input.caller, spaceId: input.spaceId, need: "view" });
  return { space, permissions, gitSync: await findSync(em, space.id) };
}
