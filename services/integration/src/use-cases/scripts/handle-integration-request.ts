import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Integration, isIntegrationName } from "../../domain/integration.js";
import { fetchEvent, fetchMethodOf } from "../../domain/platform/events.js";
import { failedAnswer, servedAnswer, type HttpAnswer } from "../shared/http-answers.js";
import { buildEnvironment } from "../shared/environment.js";

export interface IntegrationRequestInput {
  name: string;
  method: string;
  /** Path below the integration's public endpoint, with its query. */
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * An HTTP request to the integration's own public endpoint (`urls.publicEndpoint` of the
 * integration: OAuth callbacks and webhooks that name no installation): the script's `fetch`
 * handler answers it with the integration's environment alone (no installation; the
 * integration's API token), served with the integration's Content-Security-Policy. No caller:
 * the endpoint is public, as GitBook's.
 */
export async function handleIntegrationRequest(em: EntityManager, input: IntegrationRequestInput, deps: UseCaseDeps): Promise<HttpAnswer> {
  const integration = isIntegrationName(input.name) ? await em.findOne(Integration, { name: input.name }) : null;
  if (!integration) throw AppError.notFound("Integration");
  const method = fetchMethodOf(input.method);
  if (!method) throw new AppError("method_not_allowed", `${input.method} is not forwarded to integrations (GET, POST, PUT and DELETE are)`);
  const path = input.path.startsWith("/") ? input.path : `/${input.path}`;
  const url = `${deps.settings.publicUrl}/v1/integrations/${encodeURIComponent(integration.name)}/public${path}`;
  const eventId = randomUUID();
  const event = fetchEvent({ eventId, request: { url, method, headers: input.headers } });
  const environment = await buildEnvironment(deps, deps.tokens, { integration, installation: null, target: null, spaceCount: 0 });
  const answer = await deps.scripts.call({
    integration,
    organizationId: integration.ownerOrganizationId,
    event,
    environment,
    fetchBody: new TextDecoder().decode(input.body),
  });
  const failure = { id: eventId, integration, installation: null, targetInstallationId: null, type: "fetch", payload: event };
  if (!answer.ok) return failedAnswer(em, deps, failure, answer.reason, answer.logs);
  return servedAnswer(integration, answer);
}
