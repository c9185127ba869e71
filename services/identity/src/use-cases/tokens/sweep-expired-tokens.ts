import type { EntityManager } from "@mikro-orm/postgresql";
import { executeStatement, sql } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";

/**
 * How long an expired token is kept: it authenticates nothing from its expiry on and nothing lists
 * tokens, but "expired" stays the answer for a day rather than "unknown" (a log line at the edge).
 */
export const EXPIRED_TOKEN_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Tokens deleted per statement, so one run never holds a long lock on `api_tokens`. */
const SWEEP_BATCH = 1000;

/**
 * Deletes tokens that expired more than a day ago: installation tokens (one an hour per active
 * installation) and tokens issued through SSO sign-ins would otherwise pile up for ever. So do
 * sessions ended (signed out, idle past SESSION_IDLE_MS or past their absolute expiry) and
 * password reset tokens expired more than a day ago. Answers true when a full batch of any went,
 * so the job runs again at once.
 */
export async function sweepExpiredTokens(em: EntityManager, deps: Pick<UseCaseDeps, "clock" | "sessions">): Promise<boolean> {
  const now = deps.clock().getTime();
  const before = new Date(now - EXPIRED_TOKEN_RETENTION_MS);
  const idleBefore = new Date(now - EXPIRED_TOKEN_RETENTION_MS - deps.sessions.idleMs);
  const deleted = [
    await executeStatement(em, sql`delete from api_tokens where id in (select id from api_tokens where expires_at < ${before} limit ${SWEEP_BATCH})`),
    await executeStatement(
      em,
      sql`delete from sessions where id in (select id from sessions
            where ended_at < ${before} or expires_at < ${before} or last_used_at < ${idleBefore} limit ${SWEEP_BATCH})`,
    ),
    await executeStatement(em, sql`delete from password_resets where id in (select id from password_resets where expires_at < ${before} limit ${SWEEP_BATCH})`),
  ];
  return deleted.some((count) => count === SWEEP_BATCH);
}
