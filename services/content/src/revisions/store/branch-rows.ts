import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, isId, queryRows, sql, toDate } from "@imprint/runtime";

/** A change request's branch (a `branches` row). */
export interface BranchRecord {
  /** The change request's id. */
  id: string;
  spaceId: string;
  number: number;
  headRevisionId: string;
  initialRevisionId: string;
  mergedAncestorRevisionId: string | null;
  mergedRevisionId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface BranchRow {
  id: string;
  space_id: string;
  number: number;
  head_revision_id: string;
  initial_revision_id: string;
  merged_ancestor_revision_id: string | null;
  merged_revision_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toRecord = (row: BranchRow): BranchRecord => ({
  id: row.id,
  spaceId: row.space_id,
  number: row.number,
  headRevisionId: row.head_revision_id,
  initialRevisionId: row.initial_revision_id,
  mergedAncestorRevisionId: row.merged_ancestor_revision_id,
  mergedRevisionId: row.merged_revision_id,
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
});

/** Numbers fit PostgreSQL's int; longer digit strings name no change request. */
const NUMBER = /^[1-9][0-9]{0,8}$/;

/** How a change request is named wherever one is accepted: its id (a UUID) or its number in the space. */
export type BranchKey = { id: string } | { number: number };

/** The key `value` names, or undefined when it cannot name any change request. */
export function branchKeyOf(value: string): BranchKey | undefined {
  if (isId(value)) return { id: value.toLowerCase() };
  if (NUMBER.test(value)) return { number: Number(value) };
  return undefined;
}

/** The base of the next three-way merge: the space's revision last brought in, else the fork point. */
export function mergeBaseOf(branch: BranchRecord): string {
  return branch.mergedAncestorRevisionId ?? branch.initialRevisionId;
}

/** Whether the space's current revision moved since the branch forked or was last updated (never once merged). */
export function isOutdated(branch: BranchRecord, spaceRevisionId: string | null): boolean {
  return branch.mergedRevisionId === null && spaceRevisionId !== mergeBaseOf(branch);
}

/** Largest number a branch can have (PostgreSQL int; numbers are written as digits in ContentRef). */
export const MAX_BRANCH_NUMBER = 999_999_999;

/** A branch's number: an integer from 1 to MAX_BRANCH_NUMBER. */
export function validateBranchNumber(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_BRANCH_NUMBER) {
    throw AppError.invalidArgument(`number: must be an integer from 1 to ${MAX_BRANCH_NUMBER}`);
  }
  return value;
}

/** A merged branch takes no more edits (drafts, updates, imports): failed_precondition naming `field`. */
export function requireUnmerged(branch: BranchRecord, field = "change_request_id"): void {
  if (branch.mergedRevisionId) throw new AppError("failed_precondition", `${field}: the change request is merged`);
}

/** The branch once merged as `mergedRevisionId` at `now` (set once; the row follows with markBranchMerged). */
export function mergedBranch(branch: BranchRecord, mergedRevisionId: string, now: Date): BranchRecord {
  return { ...branch, mergedRevisionId, updatedAt: now };
}

/** The branch once updated from the space: `headRevisionId` its new head, `mergedAncestorRevisionId` the space's revision brought in. */
export function updatedBranch(branch: BranchRecord, update: { headRevisionId: string; mergedAncestorRevisionId: string }, now: Date): BranchRecord {
  return { ...branch, ...update, updatedAt: now };
}

/**
 * The space's change request named by `changeRequestId` (id or number), optionally locked for
 * update; not_found "Change request" when the space has no such change request.
 */
export async function requireBranch(em: EntityManager, spaceId: string, changeRequestId: string, options: { lock?: boolean } = {}): Promise<BranchRecord> {
  const key = branchKeyOf(changeRequestId);
  if (!key) throw AppError.notFound("Change request");
  const where = "id" in key ? sql`id = ${key.id}` : sql`number = ${key.number}`;
  const lock = options.lock ? sql`for update` : sql``;
  const [row] = await queryRows<BranchRow>(em, sql`select * from branches where space_id = ${spaceId} and ${where} ${lock}`);
  if (!row) throw AppError.notFound("Change request");
  return toRecord(row);
}

/** A branch by id, whatever its space (for revisions that name theirs). */
export async function findBranchById(em: EntityManager, id: string): Promise<BranchRecord | undefined> {
  const [row] = await queryRows<BranchRow>(em, sql`select * from branches where id = ${id}`);
  return row ? toRecord(row) : undefined;
}

/** The space's branches among `ids`. */
export async function findBranches(em: EntityManager, spaceId: string, ids: readonly string[]): Promise<BranchRecord[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<BranchRow>(em, sql`select * from branches where space_id = ${spaceId} and id = any(${ids}::uuid[]) order by number`);
  return rows.map(toRecord);
}

/** Inserts the branch unless its id or its (space, number) is taken: answers whether it was inserted. */
export async function insertBranch(em: EntityManager, branch: BranchRecord): Promise<boolean> {
  const inserted = await executeStatement(
    em,
    sql`insert into branches (id, space_id, number, head_revision_id, initial_revision_id, merged_ancestor_revision_id, merged_revision_id, created_at, updated_at)
        values (${branch.id}, ${branch.spaceId}, ${branch.number}, ${branch.headRevisionId}, ${branch.initialRevisionId},
                ${branch.mergedAncestorRevisionId}, ${branch.mergedRevisionId}, ${branch.createdAt}, ${branch.updatedAt})
        on conflict do nothing`,
  );
  return inserted === 1;
}

/**
 * Moves an unmerged branch's head from `expected` to `next` only if it still is `expected`
 * (compare-and-set, as for the space's head): answers whether it moved.
 */
export async function compareAndSetBranchHead(
  em: EntityManager,
  input: { branchId: string; expected: string; next: string; mergedAncestorRevisionId?: string; now: Date },
): Promise<boolean> {
  const ancestor = input.mergedAncestorRevisionId === undefined ? sql`merged_ancestor_revision_id` : sql`${input.mergedAncestorRevisionId}`;
  const changed = await executeStatement(
    em,
    sql`update branches set head_revision_id = ${input.next}, merged_ancestor_revision_id = ${ancestor}, updated_at = ${input.now}
        where id = ${input.branchId} and head_revision_id = ${input.expected} and merged_revision_id is null`,
  );
  return changed === 1;
}

/** The branch (change request) whose merge made this revision of the space; null when none did. */
export async function findBranchMergedInto(em: EntityManager, spaceId: string, revisionId: string): Promise<string | null> {
  const [row] = await queryRows<{ id: string }>(em, sql`select id from branches where space_id = ${spaceId} and merged_revision_id = ${revisionId} limit 1`);
  return row?.id ?? null;
}

/** Records the merge revision of a branch (the row is locked by the merge). */
export async function markBranchMerged(em: EntityManager, input: { branchId: string; mergedRevisionId: string; subject: string; now: Date }): Promise<void> {
  await executeStatement(
    em,
    sql`update branches set merged_revision_id = ${input.mergedRevisionId}, merge_subject = ${input.subject}, updated_at = ${input.now} where id = ${input.branchId}`,
  );
}

/** The change request whose merge made `revisionId`, with the subject it was merged under; null when no merge made it. */
export async function mergeOfRevision(em: EntityManager, revisionId: string): Promise<{ number: number; subject: string } | null> {
  const [row] = await queryRows<{ number: number; merge_subject: string }>(
    em,
    sql`select number, merge_subject from branches where merged_revision_id = ${revisionId} limit 1`,
  );
  return row ? { number: row.number, subject: row.merge_subject } : null;
}

/** A branch with the facts of its space that reading it across an organization needs. */
export interface OrganizationBranchRow {
  branch: BranchRecord;
  /** The space's current revision (what `outdated` is judged against). */
  spaceRevisionId: string | null;
  /** The space's default level and parent collection (who may view it). */
  spaceDefaultLevel: string | null;
  spaceParentId: string | null;
}

/** Branches among `ids` whose space belongs to the organization and is not deleted, in one query. */
export async function findOrganizationBranches(em: EntityManager, organizationId: string, ids: readonly string[]): Promise<OrganizationBranchRow[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<BranchRow & { space_revision_id: string | null; space_default_level: string | null; space_parent_id: string | null }>(
    em,
    sql`select b.*, s.revision_id as space_revision_id, s.default_level as space_default_level, s.parent_id as space_parent_id
          from branches b join spaces s on s.id = b.space_id
         where b.id = any(${ids}::uuid[]) and s.organization_id = ${organizationId} and s.deleted_at is null`,
  );
  return rows.map((row) => ({
    branch: toRecord(row),
    spaceRevisionId: row.space_revision_id,
    spaceDefaultLevel: row.space_default_level,
    spaceParentId: row.space_parent_id,
  }));
}
