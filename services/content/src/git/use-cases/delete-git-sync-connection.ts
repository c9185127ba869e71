import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, sql } from "@imprint/runtime";
import { requireCaller, type CallerInput } from "../../access/index.js";
import { requireSpaceAccess } from "../../spaces/index.js";
import type { GitDeps } from "../../deps.js";

/**
 * Disconnects a space: its credentials, its webhook secret and any queued import or export are forgotten
 * (webhooks then answer 404), its last sync state stays (getSpaceGitInfo). Idempotent. Needs edit rights.
 */
export async function deleteGitSyncConnection(em: EntityManager, input: { caller: CallerInput | undefined; spaceId: string }, deps: GitDeps): Promise<void> {
  const caller = requireCaller(input.caller);
  const { space } = await requireSpaceAccess(em, deps, { caller, spaceId: input.spaceId, need: "edit" });
  await executeStatement(
    em,
    sql`update git_syncs set connection = null, secrets_ciphertext = null, pending_commit = null, pending_attempts = 0, pending_due_at = null,
        export_revision_id = null, export_actor_id = null, export_attempts = 0, export_due_at = null, updated_at = ${deps.clock()}
        where space_id = ${space.id} and connection is not null`,
  );
  deps.logger.info("git sync disconnected", { space_id: space.id });
}
