import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { requireOrganizationMembership, spacePermissions, type CallerInput } from "../../access/index.js";
import { OrganizationAccess } from "./shared/access.js";
import { Space } from "../domain/space.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface ListSpacesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
}

/** Sibling order (position), the id breaking ties; the same keyset serves every space list. */
export const SPACE_ORDER = { fields: ["position", "id"], direction: "asc" } as const satisfies { fields: (keyof Space & string)[]; direction: "asc" };

/** One page of spaces (filtered by `where`) the caller can view, each with its permissions. */
export async function pageOfVisibleSpaces(
  em: EntityManager,
  access: OrganizationAccess,
  where: FilterQuery<Space>,
  page: PageRequestLike | undefined,
): Promise<Page<SpaceView>> {
  const filter = { $and: [{ organizationId: access.organizationId, deletedAt: null }, where, access.visibleFilter()] } as FilterQuery<Space>;
  const result = await findPage(em, Space, filter, { fields: [...SPACE_ORDER.fields], direction: SPACE_ORDER.direction }, page);
  return { ...result, items: result.items.map((space) => ({ space, permissions: spacePermissions(access.spaceLevel(space), space) })) };
}

/** The organization's spaces the caller can view (guests: none), in sibling order. */
export async function listSpaces(em: EntityManager, input: ListSpacesInput, deps: SpaceDeps): Promise<Page<SpaceView>> {
  const membership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const access = await OrganizationAccess.load(em, input.organizationId, membership);
  return pageOfVisibleSpaces(em, access, {}, input.page);
}
