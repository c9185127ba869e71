import type { EntityManager } from "@mikro-orm/postgresql";
import type { CallerInput, DefaultLevel, GrantTarget, Membership } from "../../../access/index.js";
import { requireCollectionAccess, requireSpaceAccess } from "./access.js";
import type { UseCaseDeps } from "../../../deps.js";

/** The space or collection a grant is on. */
export interface GrantTargetItem {
  organizationId: string;
  id: string;
  parentId: string | null;
  defaultLevel: DefaultLevel;
  membership: Membership;
}

/**
 * The item a grant is on, if the caller may `need` on it (404 when they cannot see it, 403 when they
 * may not do it). Changing grants (`admin`, in a transaction) takes the item's row for update:
 * grant changes on one item are serialized, so two at once never both insert the same grant.
 */
export async function requireTarget(
  em: EntityManager,
  deps: UseCaseDeps,
  caller: CallerInput | undefined,
  target: GrantTarget,
  targetId: string,
  need: "view" | "admin",
): Promise<GrantTargetItem> {
  const lock = need === "admin" && em.isInTransaction();
  if (target === "space") {
    const { space, membership } = await requireSpaceAccess(em, deps, { caller, spaceId: targetId, need, lock });
    return {
      organizationId: space.organizationId,
      id: space.id,
      parentId: space.parentId ?? null,
      defaultLevel: space.defaultLevel ?? null,
      membership,
    };
  }
  const { collection, membership } = await requireCollectionAccess(em, deps, { caller, collectionId: targetId, need, lock });
  return {
    organizationId: collection.organizationId,
    id: collection.id,
    parentId: collection.parentId ?? null,
    defaultLevel: collection.defaultLevel ?? null,
    membership,
  };
}
