import type { EntityManager } from "@mikro-orm/postgresql";
import type { User } from "@imprint/proto/identity/v1";
import { queryRows, sql, toDate } from "@imprint/runtime";
import { requireCaller, requireSpace, type CallerInput } from "./shared/access.js";
import { findChangeRequest } from "./shared/change-requests.js";
import type { UseCaseDeps } from "../deps.js";
import { loadUsers } from "./shared/users.js";

export interface ListContributorsInput {
  caller: CallerInput | undefined;
  spaceId: string;
  changeRequestId: string;
}

export interface ContributorView {
  userId: string;
  user: User | undefined;
  kind: "edit" | "comment";
  /** Comments and replies posted; 1 for edits (who edited is recorded, not each edit). */
  count: number;
  updatedAt: Date;
}

/**
 * Who contributed to a change request, once per kind: editors (created, committed, merged) and
 * commenters (comments and replies on it, review comments included), latest contribution first.
 * One query; users from identity in one call.
 */
export async function listContributors(em: EntityManager, input: ListContributorsInput, deps: UseCaseDeps): Promise<ContributorView[]> {
  const caller = requireCaller(input.caller);
  const space = await requireSpace(deps, caller, input.spaceId, "view");
  const changeRequest = await findChangeRequest(em, space.spaceId, input.changeRequestId);
  const rows = await queryRows(
    em,
    sql<{ user_id: string; kind: "edit" | "comment"; count: string; updated_at: string | Date }>`
      select user_id, 'edit' as kind, 1 as count, coalesce(last_contributed_at, first_contributed_at) as updated_at
        from change_request_contributors where change_request_id = ${changeRequest.id}
      union all
      select author_id as user_id, 'comment' as kind, count(*) as count, max(posted_at) as updated_at
        from (select author_id, posted_at from comments where change_request_id = ${changeRequest.id}
              union all
              select author_id, posted_at from comment_replies where change_request_id = ${changeRequest.id}) as posts
       group by author_id
      order by updated_at desc, user_id, kind`,
  );
  const users = await loadUsers(
    deps,
    rows.map((row) => row.user_id),
  );
  return rows.map((row) => ({
    userId: row.user_id,
    user: users.get(row.user_id),
    kind: row.kind,
    count: Number(row.count),
    updatedAt: toDate(row.updated_at),
  }));
}
