import { recordEvent } from "@imprint/runtime";
import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, spaceLevel, spacePermissions, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { spaceMoved } from "../../events.js";
import { requireCreateUnder } from "../store/parent.js";
import { lockSiblings, parentOfPointer, resolvePosition, type PositionInput } from "../store/placement.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface MoveSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** `{ collectionId: null }` = the top level; undefined = the parent of the position's sibling, else the current parent. */
  parent: { collectionId: string | null } | undefined;
  position: PositionInput | undefined;
}

/**
 * Moves a space among its siblings and/or into another collection of its organization: one row
 * changes (its parent and fractional position). Needs the admin level on the space and, when the
 * parent changes, the create level in the new parent.
 */
export async function moveSpace(em: EntityManager, input: MoveSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const caller = requireCaller(input.caller);
  const view = await deps.unitOfWork.run(em, async (tx) => {
    const { space, membership } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "admin", lock: true });
    const fromParentId = space.parentId ?? null;
    const pointerParent = input.parent ? undefined : await parentOfPointer(tx, input.position);
    const parentId = input.parent ? input.parent.collectionId : pointerParent === undefined ? fromParentId : pointerParent;
    if (parentId !== fromParentId) await requireCreateUnder(tx, membership, space.organizationId, parentId);
    await lockSiblings(tx, space.organizationId, parentId);
    const position = await resolvePosition(tx, { organizationId: space.organizationId, parentId, position: input.position, movingId: space.id });
    space.placeAt({ parentId, position }, deps.clock());
    recordEvent(tx, spaceMoved, {
      organizationId: space.organizationId,
      actor: caller,
      payload: { spaceId: space.id, fromParentId, parentId, position: space.position },
    });
    return { space, permissions: spacePermissions(await spaceLevel(tx, membership, space), space) };
  });
  return view;
}
