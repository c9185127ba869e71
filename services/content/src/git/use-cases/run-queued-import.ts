import type { EntityManager } from "@mikro-orm/postgresql";
import { importGitRepository } from "./import-git-repository.js";
import { connectionUrl } from "./shared/connection-remote.js";
import { settleFailedRun } from "./shared/failed-run.js";
import { findSync, openConnectionSecrets, settleQueuedImport, type QueuedImport } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

/**
 * Runs an import a push queued, on behalf of the user who connected the space (with their rights
 * of now): the ref's commit is imported as importGitRepository does (merged three ways with edits
 * made since the last sync). A failure is recorded as the last sync's (getSpaceGitInfo, GET
 * …/git/sync) and retried with a doubling delay, `maxAttempts` times in all, then given up until
 * the next push (an import through the API still works); a push that came meanwhile is imported after it.
 */
export async function runQueuedImport(em: EntityManager, queued: QueuedImport, deps: GitDeps): Promise<void> {
  const sync = await findSync(em, queued.spaceId);
  const secrets = sync?.connection ? openConnectionSecrets(deps, sync.spaceId, sync.secretsCiphertext) : null;
  if (!sync?.connection || !secrets) return;
  try {
    await importGitRepository(
      em,
      {
        caller: { userId: sync.connection.connectedBy },
        ref: { spaceId: sync.spaceId, changeRequestId: "", revisionId: "" },
        url: connectionUrl(sync.url, secrets),
        gitRef: sync.ref,
        projectDirectory: sync.projectDirectory,
      },
      deps,
    );
    await settleQueuedImport(em, queued, { done: true });
  } catch (error) {
    await settleFailedRun(deps, { kind: "import", attempts: queued.attempts, fields: { space_id: sync.spaceId, commit: queued.commit }, error }, (outcome) =>
      settleQueuedImport(em, queued, outcome),
    );
  }
}
