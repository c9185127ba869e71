import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { spaceDeleted } from "../../events.js";
import type { SpaceDeps } from "../../deps.js";

export interface DeleteSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
}

/**
 * Soft-deletes a space: it disappears from reads and lists, can be restored for 7 days, and is
 * purged afterwards. Needs the admin level. A space that is missing, already deleted or invisible
 * to the caller is "already gone": `deleted` is false and nothing happens.
 */
export async function deleteSpace(em: EntityManager, input: DeleteSpaceInput, deps: SpaceDeps): Promise<{ deleted: boolean }> {
  const caller = requireCaller(input.caller);
  const deleted = await deps.unitOfWork.run(em, async (tx) => {
    let access;
    try {
      access = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "admin", lock: true });
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return false;
      throw error;
    }
    const { space } = access;
    const now = deps.clock();
    space.softDelete(now);
    recordEvent(tx, spaceDeleted, {
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, deletedAt: now, lifecycleVersion: space.nextLifecycleVersion() },
    });
    return true;
  });
  return { deleted };
}
