import type { EntityManager } from "@mikro-orm/postgresql";
import type { Branch } from "@imprint/proto/content/v1/branches";
import type { User } from "@imprint/proto/identity/v1";
import { markdownToDocument } from "@imprint/document";
import { queryRows, sql } from "@imprint/runtime";
import type { ChangeRequest } from "../../domain/change-request.js";
import { callerMessage, type CallerInput } from "./access.js";
import type { UseCaseDeps } from "../../deps.js";
import { loadUsers, withMissingUsers } from "./users.js";

/** A change request with what other services and other tables know about it. */
export interface ChangeRequestView {
  changeRequest: ChangeRequest;
  /** Its branch in content (revisions, outdated); absent if content does not know it. */
  branch: Branch | undefined;
  /** The creator; absent when the user no longer exists. */
  createdBy: User | undefined;
  /** Open (unresolved) comments on it. */
  openComments: number;
  /** The description as GitBook's JSON document (JSON text); empty without a description. */
  descriptionDocumentJson: string;
}

/** Open comments per change request, in one grouped query. */
export async function openCommentCounts(em: EntityManager, spaceId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows(
    em,
    sql<{ change_request_id: string; count: string }>`select change_request_id, count(*) as count from comments
      where space_id = ${spaceId} and change_request_id in (${sql.join(ids)}) and resolved_at is null
      group by change_request_id`,
  );
  return new Map(rows.map((row) => [row.change_request_id, Number(row.count)]));
}

/** The branch of a change request, from content (read before a write commits, so its answer needs no call after). */
export async function readBranch(deps: Pick<UseCaseDeps, "content">, caller: CallerInput, changeRequest: ChangeRequest): Promise<Branch | undefined> {
  const { branches } = await deps.content.branches.batchGetBranches({
    caller: callerMessage(caller),
    spaceId: changeRequest.spaceId,
    changeRequestIds: [changeRequest.id],
  });
  return branches[0];
}

/**
 * Views of change requests of one space, for one answer: one BatchGetBranches (unless the caller
 * already holds the branches, e.g. from a merge), one BatchGetUsers and one comment count query,
 * whatever the number of change requests. A write passes the branches and the creators (`users`)
 * it read before it committed: then nothing is asked of content, and identity only, on a best
 * effort, for a creator it lacks, so that an outage cannot fail a write already saved.
 */
export async function changeRequestViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  input: {
    caller: CallerInput;
    spaceId: string;
    changeRequests: ChangeRequest[];
    branches?: Branch[];
    users?: ReadonlyMap<string, User>;
    openComments?: ReadonlyMap<string, number>;
  },
): Promise<ChangeRequestView[]> {
  const ids = input.changeRequests.map((changeRequest) => changeRequest.id);
  if (ids.length === 0) return [];
  const creators = input.changeRequests.map((changeRequest) => changeRequest.createdBy);
  const [branches, users, counts] = await Promise.all([
    input.branches ??
      deps.content.branches
        .batchGetBranches({ caller: callerMessage(input.caller), spaceId: input.spaceId, changeRequestIds: ids })
        .then((answer) => answer.branches),
    input.users ? withMissingUsers(deps, input.users, creators) : loadUsers(deps, creators),
    input.openComments ?? openCommentCounts(em, input.spaceId, ids),
  ]);
  const branchById = new Map(branches.map((branch) => [branch.id, branch]));
  return input.changeRequests.map((changeRequest) => ({
    changeRequest,
    branch: branchById.get(changeRequest.id),
    createdBy: users.get(changeRequest.createdBy),
    openComments: counts.get(changeRequest.id) ?? 0,
    descriptionDocumentJson: changeRequest.description ? JSON.stringify(markdownToDocument(changeRequest.description)) : "",
  }));
}

/**
 * The view of one change request. A write gives `branch` and `users` read before its commit
 * (`branch: null` when content does not know it), so that nothing is asked of content after, and
 * may give `openComments` too, so that its answer needs no query of its own database after.
 */
export async function changeRequestView(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  input: {
    caller: CallerInput;
    changeRequest: ChangeRequest;
    branch?: Branch | null | undefined;
    users?: ReadonlyMap<string, User>;
    openComments?: number;
  },
): Promise<ChangeRequestView> {
  const [view] = await changeRequestViews(em, deps, {
    caller: input.caller,
    spaceId: input.changeRequest.spaceId,
    changeRequests: [input.changeRequest],
    ...(input.branch !== undefined ? { branches: input.branch ? [input.branch] : [] } : {}),
    ...(input.users ? { users: input.users } : {}),
    ...(input.openComments !== undefined ? { openComments: new Map([[input.changeRequest.id, input.openComments]]) } : {}),
  });
  return view!;
}
