import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { atLeast, collectionLevel, isId, type Membership } from "../../access/index.js";
import { Collection } from "../domain/collection.js";

/**
 * Checks that the caller may create content under `parentId` of the organization: the create
 * level on that collection, or the create role in the organization for the top level. A parent
 * that is not a collection of this organization the caller can see is a bad argument.
 */
export async function requireCreateUnder(
  em: EntityManager,
  membership: Membership,
  organizationId: string,
  parentId: string | null,
  field = "parent",
): Promise<Collection | null> {
  if (parentId === null) {
    if (!atLeast(membership.role, "create")) {
      throw AppError.permissionDenied("You need the create role in the organization to add content at its top level");
    }
    return null;
  }
  const parent = isId(parentId) ? await em.findOne(Collection, { id: parentId, organizationId }) : null;
  const level = parent ? await collectionLevel(em, membership, parent) : null;
  if (!parent || !atLeast(level, "read")) throw AppError.invalidArgument(`${field}: no such collection in this organization`);
  if (!atLeast(level, "create")) throw AppError.permissionDenied("You need the create level on the parent collection");
  return parent;
}
