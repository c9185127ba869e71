import { defineEntity, p } from "@mikro-orm/postgresql";

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
  ],
});
export class ChangeRequest extends ChangeRequestSchema.class {}
ChangeRequestSchema.setClass(ChangeRequest);

/** Someone who created, edited or merged a change request (the `contributor` list filter). */
export const ChangeRequestContributorSchema = defineEntity({
  name: "ChangeRequestContributor",
  tableName: "change_request_contributors",
  properties: {
    changeRequestId: p.uuid().primary(),
    userId: p.uuid().primary(),
    spaceId: p.uuid(),
    firstContributedAt: p.datetime(),
  },
  indexes: [{ properties: ["spaceId", "userId"], name: "change_request_contributors_space_user_index" }],
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
  },
});
export class SpaceState extends SpaceStateSchema.class {}
SpaceStateSchema.setClass(SpaceState);
