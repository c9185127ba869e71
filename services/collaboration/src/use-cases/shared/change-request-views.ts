import type { EntityManager } from "@mikro-orm/postgresql";
import type { Branch } from "@imprint/proto/content/v1/branches";
import type { User } from "@imprint/proto/identity/v1";
import { markdownToDocument } from "@imprint/document";
import type { ChangeRequest } from "../../domain/change-request.js";
import { callerMessage, type CallerInput } from "./access.js";
import type { UseCaseDeps } from "../../deps.js";
import { loadUsers } from "./users.js";

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
async function openCommentCounts(em: EntityManager, spaceId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await em.execute<{ change_request_id: string; count: string }[]>(
    `select change_request_id, count(*) as count from comments
      where space_id = ? and change_request_id in (${ids.map(() => "?").join(", ")}) and resolved_at is null
      group by change_request_id`,
    [spaceId, ...ids],
  );
  return new Map(rows.map((row) => [row.change_request_id, Number(row.count)]));
}

/**
 * Views of change requests of one space, for one answer: one BatchGetBranches (unless the caller
 * already holds the branches, e.g. from a merge), one BatchGetUsers and one comment count query,
 * whatever the number of change requests.
 */
export async function changeRequestViews(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  input: { caller: CallerInput; spaceId: string; changeRequests: ChangeRequest[]; branches?: Branch[] },
): Promise<ChangeRequestView[]> {
  const ids = input.changeRequests.map((changeRequest) => changeRequest.id);
  if (ids.length === 0) return [];
  const [branches, users, counts] = await Promise.all([
    input.branches ??
      deps.content.branches
        .batchGetBranches({ caller: callerMessage(input.caller), spaceId: input.spaceId, changeRequestIds: ids })
        .then((answer) => answer.branches),
    loadUsers(deps, input.changeRequests.map((changeRequest) => changeRequest.createdBy)),
    openCommentCounts(em, input.spaceId, ids),
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

/** The view of one change request. */
export async function changeRequestView(
  em: EntityManager,
  deps: Pick<UseCaseDeps, "content" | "identity">,
  input: { caller: CallerInput; changeRequest: ChangeRequest; branch?: Branch | undefined },
): Promise<ChangeRequestView> {
  const [view] = await changeRequestViews(em, deps, {
    caller: input.caller,
    spaceId: input.changeRequest.spaceId,
    changeRequests: [input.changeRequest],
    ...(input.branch ? { branches: [input.branch] } : {}),
  });
  return view!;
}
