import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, queryRows, sql, toDate } from "@imprint/runtime";
import type { RevisionCaches, RevisionHeader } from "../domain/tree/caches.js";

interface RevisionRow {
  id: string;
  space_id: string;
  store_id: string;
  parents: string[];
  status: "draft" | "committed";
  root: string | null;
  variables: Record<string, string>;
  type: string;
  message: string;
  git: Record<string, unknown> | null;
  created_by: string | null;
  created_at: Date | string;
  committed_at: Date | string | null;
  branch_id: string | null;
}

const toHeader = (row: RevisionRow): RevisionHeader => ({
  id: row.id,
  spaceId: row.space_id,
  storeId: row.store_id,
  parents: row.parents,
  status: row.status,
  root: row.root,
  variables: row.variables,
  type: row.type,
  message: row.message,
  git: row.git,
  createdBy: row.created_by,
  createdAt: toDate(row.created_at),
  committedAt: row.committed_at === null ? null : toDate(row.committed_at),
  branchId: row.branch_id,
});

/** A revision (or draft) row; committed ones come from the cache when they can (they never change). */
export async function findRevision(em: EntityManager, caches: RevisionCaches, id: string): Promise<RevisionHeader | undefined> {
  const cached = caches.revisions.get(id);
  if (cached) return cached;
  const [row] = await queryRows<RevisionRow>(em, sql`select * from revisions where id = ${id}`);
  if (!row) return undefined;
  const header = toHeader(row);
  if (header.status === "committed") caches.revisions.set(id, header);
  return header;
}

/** The row locked for update (for draft edits and commits). */
export async function lockRevision(em: EntityManager, id: string): Promise<RevisionHeader | undefined> {
  const [row] = await queryRows<RevisionRow>(em, sql`select * from revisions where id = ${id} for update`);
  return row ? toHeader(row) : undefined;
}

export async function insertRevision(em: EntityManager, revision: RevisionHeader): Promise<void> {
  await executeStatement(
    em,
    sql`insert into revisions (id, space_id, store_id, parents, status, root, variables, type, message, git, created_by, created_at, committed_at, branch_id)
        values (${revision.id}, ${revision.spaceId}, ${revision.storeId}, ${revision.parents}, ${revision.status}, ${revision.root},
                ${JSON.stringify(revision.variables)}::jsonb, ${revision.type}, ${revision.message},
                ${revision.git ? JSON.stringify(revision.git) : null}::jsonb, ${revision.createdBy}, ${revision.createdAt}, ${revision.committedAt},
                ${revision.branchId})`,
  );
}

export async function updateDraftContent(em: EntityManager, id: string, content: { root: string | null; variables: Record<string, string> }): Promise<void> {
  await executeStatement(
    em,
    sql`update revisions set root = ${content.root}, variables = ${JSON.stringify(content.variables)}::jsonb where id = ${id} and status = 'draft'`,
  );
}

/** The space's current revision id (the `spaces.revision_id` pointer). */
export async function readSpaceHeadRow(em: EntityManager, spaceId: string): Promise<string | null | undefined> {
  const [row] = await queryRows<{ revision_id: string | null }>(em, sql`select revision_id from spaces where id = ${spaceId}`);
  return row ? row.revision_id : undefined;
}

/**
 * Moves the space's current revision from `expected` to `next` only if it still is `expected`
 * (compare-and-set): answers whether it moved. Two commits racing from the same parent cannot both
 * succeed; the row lock taken by the UPDATE makes the second wait and then see the new value.
 */
export async function compareAndSetSpaceHead(em: EntityManager, spaceId: string, expected: string | null, next: string): Promise<boolean> {
  const changed = await executeStatement(
    em,
    sql`update spaces set revision_id = ${next} where id = ${spaceId} and revision_id is not distinct from ${expected}`,
  );
  return changed === 1;
}
