import type { UseCaseDeps } from "../../deps.js";

/**
 * Revokes the tokens of removed installations (and of a removed integration's own principal) at
 * identity, after the removal committed. A failure is logged: the tokens still expire within
 * their lifetime (INTEGRATION_TOKEN_TTL_SECONDS).
 */
export async function revokeInstallationTokens(deps: Pick<UseCaseDeps, "identity" | "tokens" | "logger">, principalIds: readonly string[]): Promise<void> {
  for (const id of principalIds) {
    deps.tokens.forget(id);
    try {
      await deps.identity.tokens.revokeInstallationTokens({ installationId: id });
    } catch (error) {
      deps.logger.warn("could not revoke an installation's tokens; they expire on their own", { installationId: id, err: error });
    }
  }
}
