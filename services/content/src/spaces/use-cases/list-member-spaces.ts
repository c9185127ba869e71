import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type Page, type PageRequestLike, type SortDirection } from "@imprint/runtime";
import { isId, requireOrganizationMembership, spacePermissions, type CallerInput, type Level } from "../../access/index.js";
import { OrganizationAccess } from "./shared/access.js";
import { Space } from "../domain/space.js";
import type { SpaceView } from "../store/views.js";
import type { SpaceDeps } from "../../deps.js";

export interface ListMemberSpacesInput {
  caller: CallerInput | undefined;
  organizationId: string;
  userId: string;
  page: PageRequestLike | undefined;
  /** By creation time; defaults to descending. */
  order: SortDirection | undefined;
}

export interface MemberSpace extends SpaceView {
  /** The member's level on the space. */
  level: Level;
}

/**
 * The spaces a member can access with their level on each. Members list their own; admins list
 * anyone's. Each space's `permissions` are the caller's, as in every response.
 */
export async function listMemberSpaces(em: EntityManager, input: ListMemberSpacesInput, deps: SpaceDeps): Promise<Page<MemberSpace>> {
  const callerMembership = await requireOrganizationMembership(deps, input.organizationId, input.caller);
  const self = input.caller!.userId === input.userId;
  if (!self && callerMembership.role !== "admin") throw AppError.permissionDenied("Only admins can list the spaces of other members");
  const memberMembership = self ? callerMembership : isId(input.userId) ? await deps.memberships.get(input.organizationId, input.userId) : null;
  if (!memberMembership) throw AppError.notFound("Member");

  const memberAccess = await OrganizationAccess.load(em, input.organizationId, memberMembership);
  const callerAccess = self ? memberAccess : await OrganizationAccess.load(em, input.organizationId, callerMembership);
  const filter = { $and: [{ organizationId: input.organizationId, deletedAt: null }, memberAccess.visibleFilter()] } as FilterQuery<Space>;
  const page = await findPage(em, Space, filter, { fields: ["createdAt", "id"], direction: input.order ?? "desc", dateFields: ["createdAt"] }, input.page);
  return {
    ...page,
    items: page.items.map((space) => ({
      space,
      // The filter keeps only spaces the member has a level on.
      level: memberAccess.spaceLevel(space)!,
      permissions: spacePermissions(callerAccess.spaceLevel(space), space),
    })),
  };
}
