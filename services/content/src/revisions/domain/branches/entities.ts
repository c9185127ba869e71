import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * A change request's branch of its space's history (written by hand in Migration20261121100500;
 * the use cases use hand-written SQL, see branch-rows.ts). The id is the change request's.
 */
export const BranchSchema = defineEntity({
  name: "Branch",
  tableName: "branches",
  properties: {
    id: p.uuid().primary(),
    spaceId: p.uuid(),
    /** The change request's number in the space (1, 2, 3...). */
    number: p.integer(),
    /** The branch's current revision; moved by compare-and-set like the space's. */
    headRevisionId: p.string().length(64),
    /** The space's revision the branch was forked from. */
    initialRevisionId: p.string().length(64),
    /** The space's revision last brought into the branch by an update. */
    mergedAncestorRevisionId: p.string().length(64).nullable(),
    /** The space's revision the merge produced; set once, when merged. */
    mergedRevisionId: p.string().length(64).nullable(),
    /** The change request's subject when it was merged (a Git Sync export's commit message); empty before. */
    mergeSubject: p.text().default(""),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ properties: ["spaceId", "number"], name: "branches_space_number_unique" }],
});
export class Branch extends BranchSchema.class {}
BranchSchema.setClass(Branch);
