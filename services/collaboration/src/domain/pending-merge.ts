import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * A merge this service asked content for and has not yet recorded (nor given up on): written and
 * committed before the call, removed with the merge's record. One left behind means the call was
 * interrupted (this process or content stopped, the answer was lost): the merge resumer asks
 * content whether the branch was merged, then records the merge or drops the intent (the change
 * request stays open), within seconds, whichever process is up.
 */
export const PendingMergeSchema = defineEntity({
  name: "PendingMerge",
  tableName: "pending_merges",
  properties: {
    changeRequestId: p.uuid().primary(),
    spaceId: p.uuid(),
    organizationId: p.uuid(),
    /** Who asked for the merge: the resumer reads the branch as them and records them as the merger. */
    userId: p.uuid(),
    tokenId: p.text().nullable(),
    requestedAt: p.datetime(),
  },
  indexes: [{ properties: ["requestedAt"], name: "pending_merges_requested_at_index" }],
});
export class PendingMerge extends PendingMergeSchema.class {}
PendingMergeSchema.setClass(PendingMerge);
