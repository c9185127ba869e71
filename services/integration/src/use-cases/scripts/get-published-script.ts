import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation } from "../../domain/installation.js";
import { Integration, isIntegrationName } from "../../domain/integration.js";
import { fetchPublishedScriptEvent } from "../../domain/platform/events.js";
import { buildEnvironment } from "../shared/environment.js";
import { spaceCounts } from "../shared/installations.js";
import { failedAnswer, SCRIPT_INJECT_SCOPE, servedAnswer, type HttpAnswer } from "../shared/http-answers.js";

/**
 * The script a site installation injects into the site's pages (`fetch_published_script`),
 * served with the integration's Content-Security-Policy. Only for installations on that site of
 * integrations with the `site:script:inject` scope.
 */
export async function getPublishedScript(
  em: EntityManager,
  input: { name: string; installationId: string; siteId: string },
  deps: UseCaseDeps,
): Promise<HttpAnswer> {
  const integration = isIntegrationName(input.name) ? await em.findOne(Integration, { name: input.name }) : null;
  const ids = isId(input.installationId) && isId(input.siteId);
  const installation = integration && ids ? await em.findOne(Installation, { id: input.installationId, integrationId: integration.id }) : null;
  const target = installation ? await em.findOne(TargetInstallation, { installationId: installation.id, kind: "site", targetId: input.siteId }) : null;
  if (!integration || !installation || !target || !integration.hasScope(SCRIPT_INJECT_SCOPE)) throw AppError.notFound("Script");
  const eventId = randomUUID();
  const event = fetchPublishedScriptEvent({ eventId, installationId: installation.id, siteId: input.siteId });
  const counts = await spaceCounts(em, [installation]);
  const environment = await buildEnvironment(deps, deps.tokens, { integration, installation, target, spaceCount: counts.get(installation.id) ?? 0 });
  const answer = await deps.scripts.call({ integration, organizationId: installation.organizationId, event, environment });
  if (!answer.ok)
    return failedAnswer(
      em,
      deps,
      { id: eventId, integration, installation, targetInstallationId: target.id, type: "fetch_published_script", payload: event },
      answer.reason,
      answer.logs,
    );
  return servedAnswer(integration, answer);
}
