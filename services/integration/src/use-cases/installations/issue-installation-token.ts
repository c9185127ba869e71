import type { EntityManager } from "@mikro-orm/postgresql";
import { requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { roleForScopes } from "../../delivery/installation-tokens.js";
import { findInstallation } from "../shared/installations.js";

/**
 * A short-lived API token acting for the installation in its organization, with the role its
 * integration's scopes map to (GitBook's installation token). For admins of the installation's
 * organization or of the integration's owner.
 */
export async function issueInstallationToken(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; installationId: string },
  deps: UseCaseDeps,
): Promise<{ token: string; expiresAt: Date }> {
  const caller = requireCaller(input.caller);
  const { integration, installation } = await findInstallation(em, deps, caller, input.name, input.installationId, "change");
  return deps.tokens.issue({ id: installation.id, organizationId: installation.organizationId, integration }, roleForScopes(integration.scopes));
}
