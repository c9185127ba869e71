import type { SpaceGitSync } from "@imprint/proto/content/v1/git";
import type { EntityManager } from "@mikro-orm/postgresql";
import { findSync } from "../use-cases/shared/sync-state.js";
import { gitSyncToProto } from "./mappers.js";

/** A space's Git sync state as `Space.git_sync` carries it (GetSpace, through spaces' port); none when it never synced. */
export async function spaceGitSyncOf(em: EntityManager, spaceId: string): Promise<SpaceGitSync | undefined> {
  const sync = await findSync(em, spaceId);
  return sync ? gitSyncToProto(sync) : undefined;
}
