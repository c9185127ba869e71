import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError, type Clock } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const CHANGE_REQUEST_STATUSES = ["draft", "open", "archived", "merged"] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

export const SUBJECT_MAX = 100;
export const DESCRIPTION_MAX = 10_000;
export const AGENT_TASK_ID_MAX = 128;

/**
 * A change request: a proposal to change a space's content, numbered per space. Its content is a
 * branch in the content service named by the same id (created with it, merged and updated through
 * content's BranchService); the revisions shown with it are read from there.
 */
export const ChangeRequestSchema = defineEntity({
  name: "ChangeRequest",
  tableName: "change_requests",
  properties: {
    id: p.uuid().primary(),
    spaceId: p.uuid(),
    organizationId: p.uuid(),
    number: p.integer(),
    status: p.enum(CHANGE_REQUEST_STATUSES),
    subject: p.string().length(SUBJECT_MAX).default(""),
    description: p.text().default(""),
    agentTaskId: p.string().length(AGENT_TASK_ID_MAX).nullable(),
    createdBy: p.uuid(),
    createdAt: p.datetime(),
    /** Last change of its fields, status or content (commits on its branch). */
    updatedAt: p.datetime(),
    mergedAt: p.datetime().nullable(),
    mergedRevisionId: p.string().length(64).nullable(),
  },
  uniques: [{ properties: ["spaceId", "number"], name: "change_requests_space_number_unique" }],
  indexes: [
    { properties: ["spaceId", "status", "updatedAt", "id"], name: "change_requests_space_status_updated_at_index" },
    { properties: ["spaceId", "status", "createdAt", "id"], name: "change_requests_space_status_created_at_index" },
    { properties: ["spaceId", "createdBy", "status"], name: "change_requests_space_creator_index" },
    { properties: ["organizationId", "status", "updatedAt", "id"], name: "change_requests_organization_status_updated_at_index" },
    { properties: ["organizationId", "status", "createdAt", "id"], name: "change_requests_organization_status_created_at_index" },
  ],
});
export class ChangeRequest extends ChangeRequestSchema.class {
  /**
   * Changes the subject, description and/or status (validated values; `merged` is not one of
   * them, see assertSettableStatus). A merged change request is final. Answers each changed field
   * with its old and new value; nothing changes (and the clock is not read) when that is empty.
   */
  update(
    fields: { subject?: string | undefined; description?: string | undefined; status?: ChangeRequestStatus | undefined },
    clock: Clock,
  ): ChangeRequestChanges {
    const changes: ChangeRequestChanges = {};
    if (fields.subject !== undefined && fields.subject !== this.subject) changes.subject = { from: this.subject, to: fields.subject };
    if (fields.description !== undefined && fields.description !== this.description) changes.description = { from: this.description, to: fields.description };
    if (fields.status !== undefined && fields.status !== this.status) changes.status = { from: this.status, to: fields.status };
    if (Object.keys(changes).length === 0) return changes;
    if (this.status === "merged") throw new AppError("failed_precondition", "Change request is merged and can no longer be changed");
    if (fields.subject !== undefined) this.subject = fields.subject;
    if (fields.description !== undefined) this.description = fields.description;
    if (fields.status !== undefined) this.status = fields.status;
    this.updatedAt = clock();
    return changes;
  }

  /** Only an open or draft change request is merged: an archived one is reopened first. */
  assertMergeable(): void {
    if (this.status === "archived") throw new AppError("failed_precondition", "Change request is archived: reopen it before merging");
  }

  /** Bringing the space's content into a change request: not once it is merged. */
  assertUpdatableFromMain(): void {
    if (this.status === "merged") throw new AppError("failed_precondition", "Change request is merged and can no longer be updated");
  }

  /** Its content takes changes while it is open or a draft: not once merged, not while archived. */
  assertContentEditable(): void {
    if (this.status === "merged")
      throw new AppError("failed_precondition", "Change request is merged: its content can no longer be changed (open a new change request)");
    if (this.status === "archived")
      throw new AppError("failed_precondition", "Change request is archived: reopen it (status open or draft) before changing its content");
  }

  /** A merged change request is final. */
  isMerged(): boolean {
    return this.status === "merged";
  }

  /** Content merged the branch as `revisionId` at `now`; false when it is already recorded as merged. */
  markMerged(revisionId: string, now: Date): boolean {
    if (this.isMerged()) return false;
    this.status = "merged";
    this.mergedAt = now;
    this.mergedRevisionId = revisionId;
    this.updatedAt = now;
    return true;
  }

  /** A revision was committed on its branch at `now`; a merged change request no longer changes (false). */
  recordCommit(now: Date): boolean {
    if (this.isMerged()) return false;
    this.updatedAt = now;
    return true;
  }
}
ChangeRequestSchema.setClass(ChangeRequest);

/** Changed fields of a change request, each with its old and new value (what `change_request.updated` carries). */
export type ChangeRequestChanges = Record<string, { from: unknown; to: unknown }>;

/** `merged` is reached only through a merge, never set. */
export function assertSettableStatus(status: ChangeRequestStatus | undefined): void {
  if (status === "merged") throw AppError.invalidArgument("status: a change request is merged only through merge");
}

export function validateSubject(subject: string): string {
  if (characterCount(subject) > SUBJECT_MAX) throw AppError.invalidArgument(`subject: must be at most ${SUBJECT_MAX} characters`);
  return subject;
}

export function validateDescription(description: string): string {
  if (characterCount(description) > DESCRIPTION_MAX)
    throw AppError.invalidArgument(`description: must be at most ${DESCRIPTION_MAX.toLocaleString("en")} characters`);
  return description;
}

export function validateAgentTaskId(agentTaskId: string): string | null {
  const trimmed = agentTaskId.trim();
  if (characterCount(trimmed) > AGENT_TASK_ID_MAX) throw AppError.invalidArgument(`agentTaskId: must be at most ${AGENT_TASK_ID_MAX} characters`);
  return trimmed === "" ? null : trimmed;
}

/** Someone who created, edited or merged a change request (the `contributor` list filter). */
export const ChangeRequestContributorSchema = defineEntity({
  name: "ChangeRequestContributor",
  tableName: "change_request_contributors",
  properties: {
    changeRequestId: p.uuid().primary(),
    userId: p.uuid().primary(),
    spaceId: p.uuid(),
    firstContributedAt: p.datetime(),
    /** Their latest contribution (null on rows older than it: then their first). */
    lastContributedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ["spaceId", "userId"], name: "change_request_contributors_space_user_index" },
    { properties: ["userId"], name: "change_request_contributors_user_index" },
  ],
});
export class ChangeRequestContributor extends ChangeRequestContributorSchema.class {}
ChangeRequestContributorSchema.setClass(ChangeRequestContributor);

/**
 * Per-space bookkeeping: the next change request number (its row lock serialises creations in a
 * space) and the version of the space's counters carried by every event, incremented in the
 * transaction of each event so content applies counters in commit order.
 */
export const SpaceStateSchema = defineEntity({
  name: "SpaceState",
  tableName: "space_states",
  properties: {
    spaceId: p.uuid().primary(),
    nextNumber: p.integer().default(1),
    countersVersion: p.bigint("number").default(0),
    /** The newest `lifecycleVersion` of content's space events applied (a transfer older than it is late and skipped). */
    lifecycleVersion: p.integer().default(0),
  },
});
export class SpaceState extends SpaceStateSchema.class {}
SpaceStateSchema.setClass(SpaceState);
