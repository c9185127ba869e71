import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, isId } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation } from "../../domain/installation.js";
import { Integration, isIntegrationName } from "../../domain/integration.js";
import { fetchEvent, fetchMethodOf } from "../../domain/platform/events.js";
import { failedAnswer, servedAnswer, type HttpAnswer } from "../shared/http-answers.js";
import { buildEnvironment } from "../shared/environment.js";
import { spaceCounts } from "../shared/installations.js";

export interface InstallationRequestInput {
  name: string;
  installationId: string;
  method: string;
  /** Path below the installation's public endpoint, with its query. */
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * An HTTP request to an installation's public endpoint (webhooks, OAuth callbacks, web frames):
 * the script's `fetch` handler answers it, served with the integration's Content-Security-Policy.
 * No caller: the endpoint is public, as GitBook's.
 */
export async function handleInstallationRequest(em: EntityManager, input: InstallationRequestInput, deps: UseCaseDeps): Promise<HttpAnswer> {
  const integration = isIntegrationName(input.name) ? await em.findOne(Integration, { name: input.name }) : null;
  const installation =
    integration && isId(input.installationId) ? await em.findOne(Installation, { id: input.installationId, integrationId: integration.id }) : null;
  if (!integration || !installation) throw AppError.notFound("Installation");
  const method = fetchMethodOf(input.method);
  if (!method) throw new AppError("method_not_allowed", `${input.method} is not forwarded to integrations (GET, POST, PUT and DELETE are)`);
  const path = input.path.startsWith("/") ? input.path : `/${input.path}`;
  const url = `${deps.settings.publicUrl}/v1/integrations/${encodeURIComponent(integration.name)}/installations/${installation.id}/public${path}`;
  const eventId = randomUUID();
  const event = fetchEvent({ eventId, installationId: installation.id, request: { url, method, headers: input.headers } });
  const counts = await spaceCounts(em, [installation]);
  const environment = await buildEnvironment(deps, deps.tokens, { integration, installation, target: null, spaceCount: counts.get(installation.id) ?? 0 });
  const answer = await deps.scripts.call({
    integration,
    organizationId: installation.organizationId,
    event,
    environment,
    fetchBody: new TextDecoder().decode(input.body),
  });
  const failure = { id: eventId, integration, installation, targetInstallationId: null, type: "fetch", payload: event };
  if (!answer.ok) return failedAnswer(em, deps, failure, answer.reason, answer.logs);
  return servedAnswer(integration, answer);
}
