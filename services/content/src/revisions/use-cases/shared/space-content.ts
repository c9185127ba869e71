import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, type Clock, queryRows, sql } from "@imprint/runtime";
import type { CallerInput } from "../../../access/index.js";
import type { RevisionHeader } from "../../domain/tree/caches.js";
import { compareAndSetSpaceHead, insertRevision, readSpaceHeadRow } from "../../store/revision-rows.js";
import { recordRevisionCreated } from "./drafts.js";

/**
 * What space creation, duplication and the purge ask of the revision store (C1's use cases call
 * these inside their own transactions, on their EntityManager).
 */

/**
 * A space's first revision (no parents, committed, the space's head) over `content`: a store and
 * its tree root (null: empty) with the revision variables. Records `revision.created`.
 */
async function insertFirstRevision(
  em: EntityManager,
  input: {
    spaceId: string;
    organizationId: string;
    content: { storeId: string; root: string | null; variables: Record<string, string> };
    actor: CallerInput | null;
    now: Date;
  },
): Promise<{ revisionId: string }> {
  const revision: RevisionHeader = {
    id: randomUUID(),
    spaceId: input.spaceId,
    storeId: input.content.storeId,
    parents: [],
    status: "committed",
    root: input.content.root,
    variables: input.content.variables,
    type: "edits",
    message: "",
    git: null,
    createdBy: input.actor?.userId ?? null,
    createdAt: input.now,
    committedAt: input.now,
    branchId: null,
  };
  await insertRevision(em, revision);
  recordRevisionCreated(em, {
    organizationId: input.organizationId,
    actor: input.actor,
    spaceId: input.spaceId,
    revisionId: revision.id,
    parents: [],
    movedHead: true,
  });
  return { revisionId: revision.id };
}

/**
 * The first revision of a new space: empty content, in a new store. Records `revision.created`.
 * The caller stores the answered id as the space's `revisionId`.
 */
export async function createInitialRevision(
  em: EntityManager,
  input: { spaceId: string; organizationId: string; actor: CallerInput | null; clock: Clock },
): Promise<{ revisionId: string }> {
  return insertFirstRevision(em, {
    spaceId: input.spaceId,
    organizationId: input.organizationId,
    content: { storeId: randomUUID(), root: null, variables: {} },
    actor: input.actor,
    now: input.clock(),
  });
}

/**
 * The first revision of a duplicated space: the source revision's content as is. The new space
 * joins the source's store, so its revision points at the same tree root and shares every page,
 * file and body row: one row is written, whatever the size of the space.
 */
export async function duplicateSpaceContent(
  em: EntityManager,
  input: { fromSpaceId: string; fromRevisionId: string; toSpaceId: string; toOrganizationId: string; clock?: Clock; actor?: CallerInput | null },
): Promise<{ revisionId: string }> {
  const [source] = await queryRows<{ store_id: string; root: string | null; variables: Record<string, string> }>(
    em,
    sql`select store_id, root, variables from revisions where id = ${input.fromRevisionId} and space_id = ${input.fromSpaceId} and status = 'committed'`,
  );
  if (!source) throw AppError.notFound("Revision");
  return insertFirstRevision(em, {
    spaceId: input.toSpaceId,
    organizationId: input.toOrganizationId,
    content: { storeId: source.store_id, root: source.root, variables: source.variables },
    actor: input.actor ?? null,
    now: (input.clock ?? (() => new Date()))(),
  });
}

/** The space's current revision id; undefined when there is no such space. */
export async function readSpaceHead(em: EntityManager, spaceId: string): Promise<string | null | undefined> {
  return readSpaceHeadRow(em, spaceId);
}

/**
 * Moves the space's current revision by compare-and-set; `conflict` when it is no longer
 * `expectedRevisionId`.
 */
export async function advanceSpaceHead(em: EntityManager, input: { spaceId: string; expectedRevisionId: string | null; newRevisionId: string }): Promise<void> {
  if (!(await compareAndSetSpaceHead(em, input.spaceId, input.expectedRevisionId, input.newRevisionId))) {
    throw AppError.conflict("The space's current revision changed meanwhile");
  }
}
