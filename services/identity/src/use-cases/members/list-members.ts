import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, type PageRequestLike, type SortDirection } from "@imprint/runtime";
import { organizationPermissionsFor } from "../../domain/permissions.js";
import type { MemberRoleValue } from "../../domain/roles.js";
import { findEnabledMembershipSso, findMembersPage } from "../shared/hot-path-queries.js";
import { assertSsoAllowsToken } from "../shared/sso.js";
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

/**
 * Members of the caller's organization: the membership check, then one page query joined with
 * users (and their team counts) plus its count, on the (organization, sort key, id) indexes.
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
    signInMethods: membership.signInMethods,
    role: membership.role,
    tokenId: caller.tokenId,
    now: deps.clock(),
  });
  // A guest's permissions say listMembers: false (docs/permissions.md): the list shows them nothing.
  if (!organizationPermissionsFor(membership.role ?? undefined).listMembers) throw AppError.permissionDenied("Guests cannot list the organization's members");

  return findMembersPage(em, {
    organizationId: input.organizationId,
    sort: sortField,
    direction: input.order ?? "desc",
    role: input.role,
    searchPattern: search ? containsPattern(search) : "",
    page: input.page,
  });
}
