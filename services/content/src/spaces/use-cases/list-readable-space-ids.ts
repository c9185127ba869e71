import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { requireOrganizationMembership, type CallerInput } from "../../access/index.js";
import { OrganizationAccess } from "./shared/access.js";
import { Space } from "../domain/space.js";
import type { SpaceDeps } from "../../deps.js";

/**
 * Ids of every space of the organization the caller can read (deleted spaces excluded), in id
 * order: what lists spanning an organization's spaces (its change requests) filter on, in their
 * own database, with one call. One query on the organization's spaces (their ids only) with the
 * same visibility filter as ListSpaces. NOT_FOUND "Organization" for a non-member.
 */
export async function listReadableSpaceIds(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string },
  deps: SpaceDeps,
): Promise<string[]> {
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  if (access.seesNothing) return [];
  const filter = { $and: [{ organizationId: input.organizationId, deletedAt: null }, access.visibleFilter()] } as FilterQuery<Space>;
  const rows = await em.find(Space, filter, { fields: ["id"], orderBy: { id: "asc" }, disableIdentityMap: true });
  return rows.map((row) => row.id);
}
