import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, queryRows, sql, recordEvent } from "@imprint/runtime";
import { collectionLevel, collectionPermissions, requireCaller, type CallerInput } from "../../access/index.js";
import { requireCollectionAccess } from "./shared/access.js";
import { Collection } from "../domain/collection.js";
import { collectionTransferred } from "../../events.js";
import { placeAtEnd } from "../store/placement.js";
import { requireTargetOrganizationAdmin } from "./transfer-space.js";
import type { CollectionView } from "../store/views.js";
import { collectionSubtreeIds } from "../store/subtree.js";
import type { SpaceDeps } from "../../deps.js";

export interface TransferCollectionInput {
  caller: CallerInput | undefined;
  collectionId: string;
  /** Target organization. */
  organizationId: string;
}

/**
 * Moves a collection with its whole subtree (sub-collections and their spaces, deleted ones
 * included) to the top level of another organization. The caller must be an admin of both.
 */
export async function transferCollection(em: EntityManager, input: TransferCollectionInput, deps: SpaceDeps): Promise<CollectionView> {
  const caller = requireCaller(input.caller);
  const view = await deps.unitOfWork.run(em, async (tx) => {
    const { collection, membership } = await requireCollectionAccess(tx, deps, { caller, collectionId: input.collectionId, need: "view", lock: true });
    if (membership.role !== "admin") throw AppError.permissionDenied("Transfers need the admin role in both organizations");
    const targetMembership = await requireTargetOrganizationAdmin(deps, input.organizationId, caller);
    const fromOrganizationId = collection.organizationId;
    if (fromOrganizationId === input.organizationId) {
      throw new AppError("failed_precondition", "organization: the collection already belongs to this organization");
    }
    const collectionIds = await collectionSubtreeIds(tx, collection.id);
    const position = await placeAtEnd(tx, input.organizationId, null);
    const now = deps.clock();
    await tx.nativeUpdate(Collection, { id: { $in: collectionIds } }, { organizationId: input.organizationId, updatedAt: now });
    // Each space's lifecycle version moves too: followers order this transfer with the space's own.
    const spaces = await queryRows(
      tx,
      sql<{
        id: string;
        lifecycle_version: number;
      }>`update spaces set organization_id = ${input.organizationId}, updated_at = ${now}, lifecycle_version = lifecycle_version + 1 where parent_id = any(${`{${collectionIds.join(",")}}`}::uuid[]) returning id, lifecycle_version`,
    );
    collection.placeAt({ organizationId: input.organizationId, parentId: null, position }, now);
    recordEvent(tx, collectionTransferred, {
      organizationId: input.organizationId,
      actor: caller,
      payload: {
        collectionId: collection.id,
        fromOrganizationId,
        toOrganizationId: input.organizationId,
        collectionIds,
        spaceIds: spaces.map((space) => space.id),
        spaceLifecycleVersions: Object.fromEntries(spaces.map((space) => [space.id, Number(space.lifecycle_version)])),
      },
    });
    return { collection, permissions: collectionPermissions(await collectionLevel(tx, targetMembership, collection)) };
  });
  return view;
}
