import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, queryRows, sql, WorkQueue } from "@imprint/runtime";
import { GitSync, type GitConnectionSecrets, type GitDirection, type GitOperationValue } from "../../domain/git-sync.js";
import { displayUrl } from "../../domain/remote.js";
import type { GitDeps } from "../../../deps.js";
import type { RemoteRequest } from "./remote-access.js";

/** Which remote a call names: a sync state is about one (URL without credentials, ref, directory). */
export interface SyncTarget {
  spaceId: string;
  organizationId: string;
  url: string;
  ref: string;
  projectDirectory: string;
}

/** The path (under the public API) of a connected space's webhook endpoint. */
export const webhookPath = (spaceId: string) => `/v1/spaces/${spaceId}/git/sync/webhook`;

/** A connection's sealed secrets, opened; null when none are stored. */
export function openConnectionSecrets(deps: Pick<GitDeps, "secrets">, spaceId: string, sealed: Uint8Array | null | undefined): GitConnectionSecrets | null {
  if (!sealed) return null;
  const opened = deps.secrets.open(spaceId, Buffer.from(sealed));
  if (!opened.webhookSecret) throw new AppError("internal", "a Git sync connection's sealed secrets hold no webhook secret");
  return { webhookSecret: opened.webhookSecret, ...(opened.authorization ? { authorization: opened.authorization } : {}) };
}

export async function findSync(em: EntityManager, spaceId: string): Promise<GitSync | null> {
  return em.fork().findOne(GitSync, { spaceId });
}

/** Whether the stored sync is about the same remote (then its commit and revision are a merge base). */
export function sameRemote(sync: GitSync | null, target: SyncTarget): sync is GitSync {
  return !!sync && sync.url === target.url && sync.ref === target.ref && sync.projectDirectory === target.projectDirectory;
}

/**
 * The Git syncs as a work queue of one item per space: a running import or export holds its
 * space's row under a lease for at most `staleAfterMs` (every operation is killed well before, so
 * a lease that ran out is an operation whose process died). Its end is fenced by its start time.
 */
const gitSyncQueue = new WorkQueue({ table: "git_syncs", key: "space_id", open: sql`true` });

const heldBy = (operation: GitOperationValue) => ({ holds: sql`operation->>'startedAt' = ${operation.startedAt}` });

/**
 * Claims the space for one Git operation and records it as running (creating the sync row, about
 * this remote, on the first one). Two imports or exports of one space never run at once: while one
 * runs, another answers CONFLICT, unless the running one's lease ran out. Read the sync state after claiming.
 */
export async function startOperation(
  em: EntityManager,
  target: SyncTarget,
  direction: GitDirection,
  now: Date,
  staleAfterMs: number,
): Promise<GitOperationValue> {
  const operation: GitOperationValue = { direction, state: "running", startedAt: now.toISOString() };
  await executeStatement(
    em,
    sql`insert into git_syncs (space_id, organization_id, url, ref, project_directory, updated_at)
        values (${target.spaceId}, ${target.organizationId}, ${target.url}, ${target.ref}, ${target.projectDirectory}, ${now})
        on conflict (space_id) do nothing`,
  );
  const claimed = await gitSyncQueue.claimKey(em, target.spaceId, {
    now,
    leaseMs: staleAfterMs,
    set: sql`operation = ${JSON.stringify(operation)}::jsonb, updated_at = ${now}`,
    returning: sql<{ space_id: string }>`space_id`,
  });
  if (!claimed) throw AppError.conflict("a Git import or export of this space is running; try again when it has ended");
  return operation;
}

/** Records a failed operation with the answer's message (never a credential: messages name the URL without them). */
export async function failOperation(em: EntityManager, spaceId: string, operation: GitOperationValue, error: unknown, now: Date): Promise<void> {
  const message = error instanceof AppError && error.code !== "internal" ? error.message : "internal error";
  const failed: GitOperationValue = { ...operation, state: "failure", endedAt: now.toISOString(), error: message.slice(0, 1000) };
  await gitSyncQueue.complete(em, spaceId, { ...heldBy(operation), set: sql`operation = ${JSON.stringify(failed)}::jsonb, updated_at = ${now}` });
}

export interface SyncedState {
  commitOid: string;
  commitMessage: string;
  commitByService: boolean;
  revisionId: string | null;
  pages: Record<string, string>;
  files: Record<string, string>;
}

/** Records a successful sync: this remote, its commit, the revision with the same content and the path mapping. */
export async function completeSync(em: EntityManager, target: SyncTarget, operation: GitOperationValue, state: SyncedState, now: Date): Promise<void> {
  const done: GitOperationValue = { ...operation, state: "success", endedAt: now.toISOString() };
  await gitSyncQueue.complete(em, target.spaceId, {
    ...heldBy(operation),
    set: sql`url = ${target.url}, ref = ${target.ref}, project_directory = ${target.projectDirectory},
          commit_oid = ${state.commitOid}, commit_message = ${state.commitMessage}, commit_by_service = ${state.commitByService},
          revision_id = ${state.revisionId}, pages = ${JSON.stringify(state.pages)}::jsonb, files = ${JSON.stringify(state.files)}::jsonb,
          operation = ${JSON.stringify(done)}::jsonb, updated_at = ${now}`,
  });
}

/** Records a successful operation that does not move the sync (an import into a change request). */
export async function completeOperation(em: EntityManager, spaceId: string, operation: GitOperationValue, now: Date): Promise<void> {
  const done: GitOperationValue = { ...operation, state: "success", endedAt: now.toISOString() };
  await gitSyncQueue.complete(em, spaceId, { ...heldBy(operation), set: sql`operation = ${JSON.stringify(done)}::jsonb, updated_at = ${now}` });
}

/**
 * Queues an import of the connected space's ref for the Git sync job: `commit` is what a push
 * announced (a later push replaces it, its attempts start over).
 */
export async function queueImport(em: EntityManager, spaceId: string, commit: string, now: Date): Promise<void> {
  await executeStatement(
    em,
    sql`update git_syncs set pending_commit = ${commit}, pending_attempts = 0, pending_due_at = ${now}
        where space_id = ${spaceId} and connection is not null`,
  );
}

/** A queued import the Git sync job may run now: its space, the commit announced and the attempts so far. */
export interface QueuedImport {
  spaceId: string;
  commit: string;
  attempts: number;
}

/** The queued import due the longest, of a connected space no import or export holds; null when none is due. */
export async function nextQueuedImport(em: EntityManager, now: Date): Promise<QueuedImport | null> {
  const [row] = await queryRows<{ space_id: string; pending_commit: string; pending_attempts: number }>(
    em,
    sql`select space_id, pending_commit, pending_attempts from git_syncs
        where pending_commit is not null and connection is not null and pending_due_at <= ${now}
          and (lease_expires_at is null or lease_expires_at <= ${now})
        order by pending_due_at limit 1`,
  );
  return row ? { spaceId: row.space_id, commit: row.pending_commit, attempts: row.pending_attempts } : null;
}

/**
 * Settles a queued import: `done`; `retry` at a time, counted as an attempt; or `given-up`: the
 * commit stays queued but never due, so neither a poll nor a replayed webhook queues it again
 * (the next push does). Only while the queue still holds that commit: a push that came meanwhile keeps its own.
 */
export async function settleQueuedImport(
  em: EntityManager,
  queued: QueuedImport,
  outcome: { done: true } | { retryAt: Date } | { givenUp: true },
): Promise<void> {
  const where = sql`where space_id = ${queued.spaceId} and pending_commit = ${queued.commit}`;
  if ("done" in outcome) {
    await executeStatement(em, sql`update git_syncs set pending_commit = null, pending_attempts = 0, pending_due_at = null ${where}`);
  } else if ("retryAt" in outcome) {
    await executeStatement(em, sql`update git_syncs set pending_attempts = pending_attempts + 1, pending_due_at = ${outcome.retryAt} ${where}`);
  } else {
    await executeStatement(em, sql`update git_syncs set pending_attempts = pending_attempts + 1, pending_due_at = null ${where}`);
  }
}

/**
 * Queues an export of a connected space (that exports) whose head moved to `revisionId` (a merge,
 * a direct edit) by `actorId`, unless that revision is the one last synced (an import's, or one
 * already exported: a redelivered event queues nothing). A later move replaces it.
 */
export async function queueExport(em: EntityManager, spaceId: string, revisionId: string, actorId: string, now: Date): Promise<boolean> {
  const changed = await executeStatement(
    em,
    sql`update git_syncs set export_revision_id = ${revisionId}, export_actor_id = ${actorId}, export_attempts = 0, export_due_at = ${now}
        where space_id = ${spaceId} and connection is not null and connection->>'direction' <> 'import'
          and revision_id is distinct from ${revisionId} and export_revision_id is distinct from ${revisionId}`,
  );
  return changed > 0;
}

/** A queued export the Git sync job may run now. */
export interface QueuedExport {
  spaceId: string;
  revisionId: string;
  actorId: string;
  attempts: number;
}

/** The queued export due the longest, of a connected space no import or export holds and with no import due (imports go first). */
export async function nextQueuedExport(em: EntityManager, now: Date): Promise<QueuedExport | null> {
  const [row] = await queryRows<{ space_id: string; export_revision_id: string; export_actor_id: string; export_attempts: number }>(
    em,
    sql`select space_id, export_revision_id, export_actor_id, export_attempts from git_syncs
        where export_revision_id is not null and connection is not null and export_due_at <= ${now}
          and (lease_expires_at is null or lease_expires_at <= ${now})
          and (pending_commit is null or pending_due_at is null or pending_due_at > ${now})
        order by export_due_at limit 1`,
  );
  return row ? { spaceId: row.space_id, revisionId: row.export_revision_id, actorId: row.export_actor_id, attempts: row.export_attempts } : null;
}

/** Settles a queued export as {@link settleQueuedImport} settles an import. */
export async function settleQueuedExport(
  em: EntityManager,
  queued: QueuedExport,
  outcome: { done: true } | { retryAt: Date } | { givenUp: true },
): Promise<void> {
  const where = sql`where space_id = ${queued.spaceId} and export_revision_id = ${queued.revisionId}`;
  if ("done" in outcome) {
    await executeStatement(em, sql`update git_syncs set export_revision_id = null, export_actor_id = null, export_attempts = 0, export_due_at = null ${where}`);
  } else if ("retryAt" in outcome) {
    await executeStatement(em, sql`update git_syncs set export_attempts = export_attempts + 1, export_due_at = ${outcome.retryAt} ${where}`);
  } else {
    await executeStatement(em, sql`update git_syncs set export_attempts = export_attempts + 1, export_due_at = null ${where}`);
  }
}

/** Forgets a purged space's sync state (the repository it synced with, its path mappings), in the purge's transaction. */
export async function purgeGitState(em: EntityManager, spaceId: string): Promise<void> {
  await em.nativeDelete(GitSync, { spaceId });
}

/**
 * Starts an import or export of `space` with the remote `request` names: the target, the running
 * operation (409 while another runs), and the space's last sync (`synced` when it was with that
 * same remote, so its commit and revision are a merge base).
 */
export async function beginSyncOperation(
  em: EntityManager,
  space: { id: string; organizationId: string },
  request: RemoteRequest,
  direction: GitDirection,
  deps: Pick<GitDeps, "clock" | "limits">,
) {
  const target: SyncTarget = {
    spaceId: space.id,
    organizationId: space.organizationId,
    url: displayUrl(request.remote),
    ref: request.ref,
    projectDirectory: request.directory,
  };
  // A connected space syncs with its repository only: another one would move its merge base.
  const connected = await findSync(em, space.id);
  if (connected?.connection && (connected.url !== target.url || connected.ref !== target.ref || connected.projectDirectory !== target.projectDirectory)) {
    throw new AppError(
      "failed_precondition",
      `space: is connected to ${connected.url} (${connected.ref}); disconnect it (DELETE /v1/spaces/{spaceId}/git/sync) before syncing with another repository`,
    );
  }
  const started = performance.now();
  // Twice the git commands' limit: an operation running longer lost its process.
  const operation = await startOperation(em, target, direction, deps.clock(), 2 * deps.limits.maxDurationMs);
  const sync = await findSync(em, space.id);
  return { target, started, operation, sync, synced: sameRemote(sync, target) ? sync : null };
}
