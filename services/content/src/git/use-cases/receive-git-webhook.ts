import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import { GIT_SYNC_JOB } from "../domain/sync-job.js";
import { parsePushPayload, verifyWebhook, type WebhookSignatures } from "../domain/webhook.js";
import { findSync, openConnectionSecrets, queueImport } from "./shared/sync-state.js";
import type { GitDeps } from "../../deps.js";

export interface ReceiveGitWebhookInput {
  spaceId: string;
  /** The raw body, as signed. */
  body: Uint8Array;
  signatures: WebhookSignatures;
  /** The host's delivery id, for the logs. */
  deliveryId: string;
}

export interface WebhookOutcome {
  /** Whether an import was queued. */
  queued: boolean;
  /** Why nothing was queued, when nothing was. */
  reason: string;
}

/**
 * A repository host's push webhook for a connected space: verified against the connection's
 * webhook secret (unauthenticated otherwise, and logged), then a push to the synced ref queues an
 * import of the ref for the Git sync job. Anything else is accepted and ignored: another ref, a
 * ping, a connection that only exports, and a commit already synced or already queued (a
 * replayed delivery changes nothing). No caller: the signature is the credential.
 */
export async function receiveGitWebhook(em: EntityManager, input: ReceiveGitWebhookInput, deps: GitDeps): Promise<WebhookOutcome> {
  const sync = isId(input.spaceId) ? await findSync(em, input.spaceId) : null;
  const secrets = sync?.connection ? openConnectionSecrets(deps, sync.spaceId, sync.secretsCiphertext) : null;
  if (!sync?.connection || !secrets) throw new AppError("not_found", "Git sync: this space is not connected to a repository");
  let host: string;
  try {
    host = verifyWebhook(secrets.webhookSecret, input.body, input.signatures);
  } catch (error) {
    deps.logger.warn("git webhook refused", { space_id: sync.spaceId, delivery_id: input.deliveryId || undefined, reason: (error as Error).message });
    throw error;
  }
  const push = parsePushPayload(input.body);
  const ignored = (reason: string): WebhookOutcome => {
    deps.logger.info("git webhook ignored", { space_id: sync.spaceId, host, delivery_id: input.deliveryId || undefined, reason });
    return { queued: false, reason };
  };
  if (!push) return ignored("not a push of a commit");
  if (sync.connection.direction === "export") return ignored("the connection only exports to the repository");
  if (push.ref !== sync.ref) return ignored(`a push to ${push.ref}, not to the synced ${sync.ref}`);
  if (push.after === sync.commitOid) return ignored("that commit is already synced");
  if (push.after === sync.pendingCommit) {
    return ignored(sync.pendingDueAt ? "that commit is already queued" : "importing that commit failed and was given up; push another commit, or import it");
  }
  await queueImport(em, sync.spaceId, push.after, deps.clock());
  deps.jobs.wake(GIT_SYNC_JOB);
  deps.logger.info("git webhook queued an import", { space_id: sync.spaceId, host, delivery_id: input.deliveryId || undefined, commit: push.after });
  return { queued: true, reason: "" };
}
