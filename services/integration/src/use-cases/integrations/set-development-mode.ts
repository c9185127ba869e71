import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, recordEvent, requireCaller, requireFetchTarget, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { integrationDevelopmentModeChanged } from "../../events.js";
import { findOwnedIntegration } from "../shared/integrations.js";

const TUNNEL_URL_MAX = 2048;

/** The tunnel URL when it is an absolute http(s) URL without credentials (the SSRF guard checks its address now and at each call). */
function checkTunnelUrl(value: string): string {
  if (value.length > TUNNEL_URL_MAX || !URL.canParse(value)) throw AppError.invalidArgument("tunnelUrl: must be an absolute http(s) URL");
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw AppError.invalidArgument("tunnelUrl: must be an http or https URL");
  if (url.username || url.password) throw AppError.invalidArgument("tunnelUrl: must not contain credentials");
  return url.toString().replace(/\/+$/, "");
}

/**
 * Development mode on: the integration's events and render calls go to the developer's tunnel,
 * every organization's with `all`, else only its owner's. Off (`tunnelUrl` null): at once, back to
 * the published script. Renders see it at once in this process, in the others when its
 * `integration.development_mode_changed` arrives.
 */
export async function setDevelopmentMode(
  em: EntityManager,
  input: { caller: CallerInput | undefined; name: string; tunnelUrl: string | null; all: boolean },
  deps: UseCaseDeps,
): Promise<void> {
  const caller = requireCaller(input.caller);
  const integration = await findOwnedIntegration(em, deps, caller, input.name, "change its development mode");
  const tunnelUrl = input.tunnelUrl === null ? null : checkTunnelUrl(input.tunnelUrl);
  // Calls reach it later: a private target is refused now, where the developer sees why.
  if (tunnelUrl !== null) await requireFetchTarget(tunnelUrl, deps.fetchPolicy, "tunnelUrl");
  await deps.unitOfWork.run(em, async (tx) => {
    integration.devTunnelUrl = tunnelUrl;
    integration.devAll = tunnelUrl !== null && input.all;
    integration.updatedAt = deps.clock();
    recordEvent(tx, integrationDevelopmentModeChanged, {
      organizationId: integration.ownerOrganizationId,
      actor: caller,
      payload: { integrationId: integration.id, name: integration.name, enabled: tunnelUrl !== null, all: integration.devAll },
    });
  });
  deps.renderLookups.forget(integration.name);
}
