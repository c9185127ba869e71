import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type KeysetSort, type PageRequestLike, type SortDirection } from "@imprint/runtime";
import { Member, PEOPLE_ONLY } from "../../domain/member.js";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { findEnabledMembershipSso } from "../shared/hot-path-queries.js";
import { assertSsoAllowsToken } from "../shared/sso.js";
import { withTeamCounts } from "../shared/members.js";
import type { MemberData } from "../shared/views.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";
import { containsPattern } from "../shared/queries.js";

export type MemberSortField = "joinedAt" | "lastSeenAt" | "name";

export interface ListMembersInput {
  caller: CallerInput | undefined;
  organizationId: string;
  page: PageRequestLike | undefined;
  /** Defaults to descending. */
  order: SortDirection | undefined;
  /** Only this role (null = guests); undefined = every role. */
  role: MemberRoleValue | undefined;
  search: string;
  /** Defaults to joinedAt. */
  sort: MemberSortField | undefined;
}

const MAX_SEARCH_LENGTH = 255;

const SORTS: Record<MemberSortField, (direction: SortDirection) => KeysetSort<Member>> = {
  joinedAt: (direction) => ({ fields: ["joinedAt", "id"], direction, dateFields: ["joinedAt"] }),
  lastSeenAt: (direction) => ({ fields: ["lastSeenAt", "id"], direction, dateFields: ["lastSeenAt"] }),
  name: (direction) => ({ fields: ["sortName", "id"], direction }),
};

/**
 * Members of the caller's organization: the membership check, then one page query joined with
 * users plus its count, on the (organization, sort key, id) indexes.
 */
export async function listMembers(
  em: EntityManager,
  input: ListMembersInput,
  deps: UseCaseDeps,
): Promise<{ items: MemberData[]; nextPageToken: string; totalCount: number }> {
  const caller = requireCaller(input.caller);
  const search = input.search.trim();
  if (search.length > MAX_SEARCH_LENGTH) throw AppError.invalidArgument(`search: must be at most ${MAX_SEARCH_LENGTH} characters`);
  const sortField = input.sort ?? "joinedAt";
  const membership = isId(input.organizationId) ? await findEnabledMembershipSso(em, input.organizationId, caller.userId) : null;
  if (!membership) throw AppError.notFound("Organization");
  await assertSsoAllowsToken(em, {
    organizationId: input.organizationId,
    organizationSso: membership.sso,
    role: membership.role,
    tokenId: caller.tokenId,
    now: deps.clock(),
  });
  // A guest's permissions say listMembers: false (docs/permissions.md): the list shows them nothing.
  if (!organizationPermissionsFor(membership.role ?? undefined).listMembers) throw AppError.permissionDenied("Guests cannot list the organization's members");

  // Installation principals are no members to list (nor count).
  const conditions: FilterQuery<Member>[] = [{ organization: input.organizationId }, PEOPLE_ONLY];
  if (input.role !== undefined) conditions.push({ role: input.role });
  // Sorting by activity lists only members who were active at least once.
  if (sortField === "lastSeenAt") conditions.push({ lastSeenAt: { $ne: null } });
  if (search) {
    const pattern = containsPattern(search);
    conditions.push({ $or: [{ user: { displayName: { $ilike: pattern } } }, { user: { email: { $ilike: pattern } } }] });
  }
  const page = await findPage(em, Member, { $and: conditions }, SORTS[sortField](input.order ?? "desc"), input.page, { populate: ["user"] });
  return { ...page, items: await withTeamCounts(em, input.organizationId, page.items) };
}
