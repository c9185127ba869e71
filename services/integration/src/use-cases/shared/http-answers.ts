import type { EntityManager } from "@mikro-orm/postgresql";
import type { UseCaseDeps } from "../../deps.js";
import type { Installation } from "../../domain/installation.js";
import type { Integration } from "../../domain/integration.js";
import { recordEndedEvent, traceWithReason } from "./deliveries.js";

/** The scope that lets an integration inject a script into the sites it is installed on. */
export const SCRIPT_INJECT_SCOPE = "site:script:inject";
/** The scope that says an injected script may set cookies (GitBook's SiteIntegrationScript `cookies`). */
export const SCRIPT_COOKIES_SCOPE = "site:script:cookies";

export interface HttpAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

/** Response headers a script may not set on Imprint's origin (they would act on the API's cookies or transport). */
const DROPPED_RESPONSE_HEADERS = new Set(["set-cookie", "connection", "transfer-encoding", "content-length", "keep-alive", "strict-transport-security"]);

/** The script's answer as Imprint serves it: hop-by-hop and cookie headers dropped, the integration's Content-Security-Policy set. */
export function servedAnswer(integration: Integration, answer: HttpAnswer): HttpAnswer {
  const headers = answer.headers.filter(([name]) => !DROPPED_RESPONSE_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== "content-security-policy");
  if (integration.contentSecurityPolicy) headers.push(["content-security-policy", integration.contentSecurityPolicy]);
  headers.push(["x-content-type-options", "nosniff"]);
  return { status: answer.status, headers, body: answer.body };
}

/** A failed script call: 502 with the reason, recorded as a failed event with its trace. */
export async function failedAnswer(
  em: EntityManager,
  deps: UseCaseDeps,
  event: {
    id: string;
    integration: Integration;
    installation: Installation | null;
    targetInstallationId: string | null;
    type: string;
    payload: Record<string, unknown>;
  },
  reason: string,
  logs: Parameters<typeof traceWithReason>[0],
): Promise<HttpAnswer> {
  await recordEndedEvent(em, deps, {
    id: event.id,
    integrationId: event.integration.id,
    installationId: event.installation?.id ?? null,
    organizationId: event.installation?.organizationId ?? null,
    targetInstallationId: event.targetInstallationId,
    type: event.type,
    payload: event.payload,
    state: "failed",
    trace: traceWithReason(logs, reason, deps.clock()),
  });
  return {
    status: 502,
    headers: [["content-type", "application/json"]],
    body: new TextEncoder().encode(JSON.stringify({ error: { code: 502, message: reason } })),
  };
}
