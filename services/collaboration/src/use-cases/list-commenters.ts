import type { EntityManager } from "@mikro-orm/postgresql";
import type { Member } from "@imprint/proto/identity/v1";
import { decodePageToken, encodePageToken, type Page, type PageRequestLike, queryRows, resolvePageSize, sql, toDate } from "@imprint/runtime";
import type { CallerInput } from "./shared/access.js";
import type { UseCaseDeps } from "../deps.js";
import { resolveScope, type CommentScopeInput } from "./shared/scope.js";

export interface ListCommentersInput {
  caller: CallerInput | undefined;
  scope: CommentScopeInput | undefined;
  page: PageRequestLike | undefined;
}

const SORT = "firstPostedAt,authorId:asc";

/**
 * The people who commented or replied in the scope, in order of their first post, as members of
 * the space's organization (from identity, one call per page). Someone who has left the
 * organization is counted but not listed, so a page may hold fewer members than its size.
 */
export async function listCommenters(em: EntityManager, input: ListCommentersInput, deps: UseCaseDeps): Promise<Page<Member>> {
  const pageSize = resolvePageSize(input.page?.pageSize);
  const scope = await resolveScope(em, deps, input.caller, input.scope, "view");
  const after = input.page?.pageToken ? decodePageToken(input.page.pageToken, SORT, ["date", "uuid"]) : undefined;
  const changeRequestId = scope.changeRequest?.id ?? null;
  const inScope = changeRequestId
    ? sql`space_id = ${scope.space.spaceId} and change_request_id = ${changeRequestId}`
    : sql`space_id = ${scope.space.spaceId} and change_request_id is null`;
  const rows = await queryRows(
    em,
    sql<{ author_id: string; first_posted_at: Date | string; total: string }>`with authors as (
       select author_id, min(posted_at) as first_posted_at from (
         select author_id, posted_at from comments where ${inScope}
         union all
         select author_id, posted_at from comment_replies where ${inScope}
       ) posts group by author_id
     )
     select author_id, first_posted_at, (select count(*) from authors) as total from authors
      ${after ? sql`where (first_posted_at, author_id) > (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by first_posted_at, author_id
      limit ${pageSize + 1}`,
  );
  const authors = rows.slice(0, pageSize);
  const last = authors[authors.length - 1];
  const nextPageToken = rows.length > pageSize && last ? encodePageToken(SORT, [toDate(last.first_posted_at).toISOString(), last.author_id]) : "";
  const members =
    authors.length > 0
      ? (await deps.identity.members.batchGetMembers({ organizationId: scope.space.organizationId, userIds: authors.map((row) => row.author_id) })).members
      : [];
  return { items: members, nextPageToken, totalCount: Number(rows[0]?.total ?? 0) };
}
