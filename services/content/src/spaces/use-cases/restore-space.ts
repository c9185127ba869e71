import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, spaceLevel, spacePermissions, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { spaceRestored } from "../../events.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface RestoreSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
}

/**
 * Brings back a space deleted within the last 7 days (admin level). Past the window the space is
 * "not found" whether or not the purge job already removed it: the window is the rule, not the
 * purge's timing. Restoring a space that is not deleted answers it unchanged.
 */
export async function restoreSpace(em: EntityManager, input: RestoreSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const caller = requireCaller(input.caller);
  const result = await deps.unitOfWork.run(em, async (tx) => {
    const { space, membership } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "admin", includeDeleted: true, lock: true });
    const restored = space.restore(deps.clock());
    if (restored) {
      recordEvent(tx, spaceRestored, {
        organizationId: space.organizationId,
        actor: caller,
        payload: { spaceId: space.id, lifecycleVersion: space.nextLifecycleVersion() },
      });
    }
    const view: SpaceView = { space, permissions: spacePermissions(await spaceLevel(tx, membership, space), space) };
    return { view, restored };
  });
  return result.view;
}
