import { randomBytes } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, queryRows, sql, toDateOrNull } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import {
  connectionAuthorization,
  parseSyncDirection,
  parseSyncPriority,
  type GitConnectionSecrets,
  type GitConnectionValue,
  type GitSync,
} from "../domain/git-sync.js";
import { displayUrl } from "../domain/remote.js";
import { parseRemoteRequest } from "./shared/remote-access.js";
import { findSync, openConnectionSecrets, webhookPath } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

export interface UpdateGitSyncConnectionInput {
  caller: CallerInput | undefined;
  spaceId: string;
  url: string;
  gitRef: string;
  projectDirectory: string;
  username: string;
  token: string;
  direction: string;
  priority: string;
  rotateWebhookSecret: boolean;
}

/**
 * Connects a space to a repository for Git Sync both ways, replacing its previous connection. The
 * credentials are sealed (never stored in clear, never answered). The webhook secret is made on the
 * first connection and when the caller asks to rotate it, and answered only then; otherwise the
 * stored one is kept (so the repository host's webhook keeps working) and none is answered. A new
 * remote (URL, ref or folder) starts over: the last sync's commit and revision are about the old
 * one, so they are forgotten. Needs edit rights; refused (409) while an import or export runs.
 */
export async function updateGitSyncConnection(
  em: EntityManager,
  input: UpdateGitSyncConnectionInput,
  deps: GitDeps,
): Promise<{ sync: GitSync; webhookSecret: string }> {
  const caller = requireCaller(input.caller);
  const request = parseRemoteRequest(caller, { spaceId: input.spaceId, url: input.url, gitRef: input.gitRef, projectDirectory: input.projectDirectory }, deps);
  const direction = parseSyncDirection(input.direction);
  const priority = parseSyncPriority(input.priority);
  const authorization = connectionAuthorization({ username: input.username, token: input.token, urlAuthorization: request.remote.authorization });
  const { space } = await requireSpaceAccess(em, deps, { caller, spaceId: request.spaceId, need: "edit" });
  const url = displayUrl(request.remote);

  const webhookSecret = await deps.unitOfWork.run(em, async (tx) => {
    const now = deps.clock();
    await executeStatement(
      tx,
      sql`insert into git_syncs (space_id, organization_id, url, ref, project_directory, updated_at)
          values (${space.id}, ${space.organizationId}, ${url}, ${request.ref}, ${request.directory}, ${now})
          on conflict (space_id) do nothing`,
    );
    const [row] = await queryRows<{ url: string; ref: string; project_directory: string; secrets_ciphertext: Buffer | null; lease_expires_at: string | null }>(
      tx,
      sql`select url, ref, project_directory, secrets_ciphertext, lease_expires_at from git_syncs where space_id = ${space.id} for update`,
    );
    if (!row) throw new AppError("internal", "the Git sync row vanished while connecting");
    const lease = toDateOrNull(row.lease_expires_at);
    if (lease && lease > now) throw AppError.conflict("a Git import or export of this space is running; try again when it has ended");
    const previous = openConnectionSecrets(deps, space.id, row.secrets_ciphertext);
    const fresh = !previous || input.rotateWebhookSecret;
    const secrets: GitConnectionSecrets = {
      webhookSecret: fresh ? randomBytes(32).toString("hex") : previous.webhookSecret,
      ...(authorization ? { authorization } : {}),
    };
    const connection: GitConnectionValue = {
      direction,
      priority,
      connectedBy: caller.userId,
      connectedAt: now.toISOString(),
      hasCredentials: authorization !== undefined,
      webhookUrl: `${deps.publicUrl}${webhookPath(space.id)}`,
    };
    const sealed = deps.secrets.seal(space.id, { ...secrets });
    const sameRemote = row.url === url && row.ref === request.ref && row.project_directory === request.directory;
    await executeStatement(
      tx,
      sameRemote
        ? sql`update git_syncs set connection = ${JSON.stringify(connection)}::jsonb, secrets_ciphertext = ${sealed}, updated_at = ${now}
              where space_id = ${space.id}`
        : sql`update git_syncs set url = ${url}, ref = ${request.ref}, project_directory = ${request.directory},
                commit_oid = null, commit_message = '', commit_by_service = false, revision_id = null,
                pending_commit = null, pending_attempts = 0, pending_due_at = null,
                export_revision_id = null, export_actor_id = null, export_attempts = 0, export_due_at = null,
                connection = ${JSON.stringify(connection)}::jsonb, secrets_ciphertext = ${sealed}, updated_at = ${now}
              where space_id = ${space.id}`,
    );
    return fresh ? secrets.webhookSecret : "";
  });
  const sync = await findSync(em, space.id);
  if (!sync) throw new AppError("internal", "the Git sync row vanished after connecting");
  deps.logger.info("git sync connected", { space_id: space.id, url, ref: request.ref, direction, priority, rotated: webhookSecret !== "" });
  return { sync, webhookSecret };
}
