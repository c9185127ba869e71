import type { EntityManager } from "@mikro-orm/postgresql";
import { findRevision, mergeOfRevision } from "../../revisions/index.js";
import { EXPORT_AUTHOR } from "../store/repository.js";
import { exportToGitRepository } from "./export-to-git-repository.js";
import { connectionUrl } from "./shared/connection-remote.js";
import { settleFailedRun } from "./shared/failed-run.js";
import { findSync, openConnectionSecrets, settleQueuedExport, type QueuedExport } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/** The commit's message: the change request's subject for a merge, else the revision's own message. */
async function messageOf(em: EntityManager, deps: GitDeps, revisionId: string): Promise<string> {
  const merge = await mergeOfRevision(em, revisionId);
  if (merge) return merge.subject.trim() || `Merge change request #${merge.number}`;
  const revision = await findRevision(em, deps.caches, revisionId);
  return revision?.message.trim() || "Update from Imprint";
}

/** Who moved the head, as identity knows them (display name and e-mail); Imprint when identity does not answer them. */
async function authorOf(deps: GitDeps, userId: string): Promise<{ name: string; email: string }> {
  const { users } = await deps.identity.users.batchGetUsers({ userIds: [userId] });
  const user = users.find((candidate) => candidate.id === userId);
  if (!user?.email) return EXPORT_AUTHOR;
  return { name: user.displayName || user.email, email: user.email };
}

/**
 * Runs an export a head move queued (a merged change request, a direct edit): the space's current
 * content as one commit whose author is who moved the head and whose message is the change
 * request's subject, pushed without force on behalf of the user who connected the space. When the
 * repository moved since the last sync the export is refused (import first): it is retried with a
 * doubling delay while the push's import comes in (webhook or poll), `maxAttempts` times in all.
 */
export async function runQueuedExport(em: EntityManager, queued: QueuedExport, deps: GitDeps): Promise<void> {
  const sync = await findSync(em, queued.spaceId);
  const secrets = sync?.connection ? openConnectionSecrets(deps, sync.spaceId, sync.secretsCiphertext) : null;
  if (!sync?.connection || !secrets || sync.connection.direction === "import") {
    await settleQueuedExport(em, queued, { done: true });
    return;
  }
  try {
    const [message, author] = await Promise.all([messageOf(em, deps, queued.revisionId), authorOf(deps, queued.actorId)]);
    const result = await exportToGitRepository(
      em,
      {
        caller: { userId: sync.connection.connectedBy },
        spaceId: sync.spaceId,
        url: connectionUrl(sync.url, secrets),
        gitRef: sync.ref,
        commitMessage: message,
        projectDirectory: sync.projectDirectory,
        author,
      },
      deps,
    );
    await settleQueuedExport(em, queued, { done: true });
    deps.logger.info("git sync exported", { space_id: sync.spaceId, revision_id: queued.revisionId, commit: result.commit.oid, pushed: result.pushed });
  } catch (error) {
    const fields = { space_id: sync.spaceId, revision_id: queued.revisionId };
    await settleFailedRun(deps, { kind: "export", attempts: queued.attempts, fields, error }, (outcome) => settleQueuedExport(em, queued, outcome));
  }
}
