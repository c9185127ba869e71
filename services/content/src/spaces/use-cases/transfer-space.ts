import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent } from "@imprint/runtime";
import { isId, requireCaller, spaceLevel, spacePermissions, type CallerInput, type Membership } from "../../access/index.js";
import { requireSpaceAccess } from "./shared/access.js";
import { Collection } from "../domain/collection.js";
import { spaceTransferred } from "../../events.js";
import { placeAtEnd } from "../store/placement.js";
import type { SpaceView } from "../store/views.js";
import type { AccessDeps, SpaceDeps } from "../../deps.js";

export interface TransferSpaceInput {
  caller: CallerInput | undefined;
  spaceId: string;
  /** Target organization (may be the current one, to change only the collection). */
  organizationId: string;
  /** Collection of the target organization; null for its top level. */
  parentId: string | null;
}

/**
 * The caller's membership of the organization a transfer goes to: organization admins only.
 * Non-members get "Organization not found" like everywhere else.
 */
export async function requireTargetOrganizationAdmin(deps: AccessDeps, organizationId: string, caller: CallerInput): Promise<Membership> {
  if (!organizationId) throw AppError.invalidArgument("organization: is required");
  const membership = isId(organizationId) ? await deps.memberships.get(organizationId, caller.userId, caller.tokenId) : null;
  if (!membership) throw AppError.notFound("Organization");
  if (membership.role !== "admin") throw AppError.permissionDenied("Transfers need the admin role in both organizations");
  return membership;
}

/**
 * Moves a space to another organization and/or collection, at the end of its new parent's items.
 * The caller must be an admin of both organizations. Its content goes with it (the revision store
 * keys everything by space).
 */
export async function transferSpace(em: EntityManager, input: TransferSpaceInput, deps: SpaceDeps): Promise<SpaceView> {
  const caller = requireCaller(input.caller);
  const view = await deps.unitOfWork.run(em, async (tx) => {
    const { space, membership: sourceMembership } = await requireSpaceAccess(tx, deps, { caller, spaceId: input.spaceId, need: "view", lock: true });
    if (sourceMembership.role !== "admin") throw AppError.permissionDenied("Transfers need the admin role in both organizations");
    const targetMembership = await requireTargetOrganizationAdmin(deps, input.organizationId, caller);
    const parentId = input.parentId;
    if (parentId !== null) {
      const parent = isId(parentId) ? await tx.findOne(Collection, { id: parentId, organizationId: input.organizationId }) : null;
      if (!parent) throw AppError.invalidArgument("parent: no such collection in the target organization");
    }
    const fromOrganizationId = space.organizationId;
    const fromParentId = space.parentId ?? null;
    if (fromOrganizationId === input.organizationId && fromParentId === parentId) {
      throw new AppError("failed_precondition", "The space already belongs to this organization and collection");
    }
    const position = await placeAtEnd(tx, input.organizationId, parentId, space.id);
    space.placeAt({ organizationId: input.organizationId, parentId, position }, deps.clock());
    recordEvent(tx, spaceTransferred, {
      organizationId: input.organizationId,
      actor: caller,
      payload: {
        spaceId: space.id,
        fromOrganizationId,
        toOrganizationId: input.organizationId,
        fromParentId,
        parentId,
        lifecycleVersion: space.nextLifecycleVersion(),
      },
    });
    return { space, permissions: spacePermissions(await spaceLevel(tx, targetMembership, space), space) };
  });
  return view;
}
