import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { requireOrganizationMembership, spacePermissions, type CallerInput } from "../../access/index.js";
import { OrganizationAccess } from "./shared/access.js";
import { Space } from "../domain/space.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

/** Ids one BatchGetSpaces call may ask for. */
export const BATCH_GET_SPACES_MAX = 1000;

/**
 * The organization's spaces among `spaceIds` that the caller can view (deleted ones, unknown ids
 * and spaces hidden from the caller are left out), in the order asked: one query with the same
 * visibility filter as ListSpaces. NOT_FOUND "Organization" for a non-member.
 */
export async function batchGetSpaces(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; spaceIds: string[] },
  deps: SpaceDeps,
): Promise<SpaceView[]> {
  if (input.spaceIds.length > BATCH_GET_SPACES_MAX) throw AppError.invalidArgument(`space_ids: at most ${BATCH_GET_SPACES_MAX} ids`);
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  const ids = [...new Set(input.spaceIds.filter(isId))];
  if (access.seesNothing || ids.length === 0) return [];
  const filter = { $and: [{ id: { $in: ids }, organizationId: input.organizationId, deletedAt: null }, access.visibleFilter()] } as FilterQuery<Space>;
  const byId = new Map((await em.find(Space, filter)).map((space) => [space.id, space]));
  return ids.flatMap((id) => {
    const space = byId.get(id);
    return space ? [{ space, permissions: spacePermissions(access.spaceLevel(space), space) }] : [];
  });
}
