import type { SpaceGitSync } from "@imprint/proto/content/v1/git";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
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
export async function getSpace(em: EntityManager, input: GetSpaceInput, deps: SpaceDeps): Promise<SpaceView & { gitSync: SpaceGitSync | undefined }> {
  const { space, permissions } = await requireSpaceAccess(em, deps, { caller: input.caller, spaceId: input.spaceId, need: "view" });
  return { space, permissions, gitSync: await deps.spaceContent.gitSync(em, space.id) };
}
