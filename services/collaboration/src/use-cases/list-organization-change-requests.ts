import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { raw } from "@mikro-orm/postgresql";
import { AppError, findPage, type Page, type PageRequestLike, queryRows, sql } from "@imprint/runtime";
import { markdownToDocument } from "@imprint/document";
import { ChangeRequest, type ChangeRequestStatus } from "../domain/change-request.js";
import { callerMessage, isId, requireCaller, type CallerInput } from "./shared/access.js";
import type { ChangeRequestView } from "./shared/change-request-views.js";
import { loadUsers } from "./shared/users.js";
import { CHANGE_REQUEST_SORTS, type ChangeRequestOrder } from "./list-change-requests.js";
import type { UseCaseDeps } from "../deps.js";

export interface ListOrganizationChangeRequestsInput {
  caller: CallerInput | undefined;
  organizationId: string;
  /** Defaults to [open]. */
  statuses: ChangeRequestStatus[];
  /** Only those created by this user ("" for anyone). */
  creatorUserId: string;
  /** Only those this user created, edited or merged ("" for anyone). */
  contributorUserId: string;
  /** Only those of this space ("" for every space the caller can read). */
  spaceId: string;
  /** Defaults to updatedAt; always newest first. */
  orderBy: ChangeRequestOrder | undefined;
  page: PageRequestLike | undefined;
}

/**
 * One page of the change requests of an organization's spaces that the caller can read. Content
 * owns access: one ListReadableSpaceIds call answers the spaces the caller can read (NOT_FOUND
 * "Organization" for a non-member), and the database filters on them with the other filters, on
 * the (organization, status, date, id) indexes, paged by keyset. The page is then completed with
 * one call for its branches, one for its users and one query for its open comments, whatever the
 * number of spaces it spans.
 */
export async function listOrganizationChangeRequests(
  em: EntityManager,
  input: ListOrganizationChangeRequestsInput,
  deps: UseCaseDeps,
): Promise<Page<ChangeRequestView>> {
  const caller = requireCaller(input.caller);
  if (!isId(input.organizationId)) throw AppError.notFound("Organization");
  const { spaceIds } = await deps.content.spaces.listReadableSpaceIds({ caller: callerMessage(caller), organizationId: input.organizationId });
  const readable = input.spaceId ? spaceIds.filter((id) => id === input.spaceId.toLowerCase()) : spaceIds;
  const statuses = input.statuses.length > 0 ? [...new Set(input.statuses)] : (["open"] as ChangeRequestStatus[]);

  // The readable ids travel as one parameter, a PostgreSQL array literal (an organization may hold
  // more spaces than a statement takes parameters); only UUIDs go in it, so it needs no quoting.
  const readableArray = `{${readable.filter((id) => isId(id)).join(",")}}`;
  const conditions: FilterQuery<ChangeRequest>[] = [
    { organizationId: input.organizationId, status: { $in: statuses }, spaceId: { $in: raw(`select unnest(?::uuid[])`, [readableArray]) } },
  ];
  // A user filter that is not a user id matches nobody.
  if (input.creatorUserId) conditions.push(isId(input.creatorUserId) ? { createdBy: input.creatorUserId } : { id: { $in: [] } });
  if (input.contributorUserId) {
    conditions.push(
      isId(input.contributorUserId)
        ? { id: { $in: raw(`select change_request_id from change_request_contributors where user_id = ?`, [input.contributorUserId]) } }
        : { id: { $in: [] } },
    );
  }
  const page = await findPage(em, ChangeRequest, { $and: conditions }, CHANGE_REQUEST_SORTS[input.orderBy ?? "updatedAt"], input.page);
  return { ...page, items: await organizationViews(em, deps, caller, input.organizationId, page.items) };
}

/** Views of change requests of several spaces: one BatchGetOrganizationBranches, one BatchGetUsers, one comment count query. */
async function organizationViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  caller: CallerInput,
  organizationId: string,
  changeRequests: ChangeRequest[],
): Promise<ChangeRequestView[]> {
  const ids = changeRequests.map((changeRequest) => changeRequest.id);
  if (ids.length === 0) return [];
  const [branches, users, counts] = await Promise.all([
    deps.content.branches
      .batchGetOrganizationBranches({ caller: callerMessage(caller), organizationId, changeRequestIds: ids })
      .then((answer) => answer.branches),
    loadUsers(
      deps,
      changeRequests.map((changeRequest) => changeRequest.createdBy),
    ),
    queryRows(
      em,
      sql<{ change_request_id: string; count: string }>`select change_request_id, count(*) as count from comments
          where change_request_id in (${sql.join(ids)}) and resolved_at is null
          group by change_request_id`,
    ).then((rows) => new Map(rows.map((row) => [row.change_request_id, Number(row.count)]))),
  ]);
  const branchById = new Map(branches.map((branch) => [branch.id, branch]));
  return changeRequests.map((changeRequest) => ({
    changeRequest,
    branch: branchById.get(changeRequest.id),
    createdBy: users.get(changeRequest.createdBy),
    openComments: counts.get(changeRequest.id) ?? 0,
    descriptionDocumentJson: changeRequest.description ? JSON.stringify(markdownToDocument(changeRequest.description)) : "",
  }));
}
