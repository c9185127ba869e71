import type { EntityManager } from "@mikro-orm/postgresql";
import { queryRows, sql } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { Installation, TargetInstallation } from "../../domain/installation.js";
import { IntegrationEventRecord, type TraceLine } from "../../domain/integration-event.js";
import { Integration } from "../../domain/integration.js";
import { traceLines, traceWithReason } from "../shared/deliveries.js";
import { buildEnvironment } from "../shared/environment.js";
import { spaceCounts } from "../shared/installations.js";

/** Lines of trace an event keeps over all its attempts (the oldest go first). */
const TRACE_MAX_LINES = 500;

/**
 * The events ready to go: pending, due, and first in line for their installation (an
 * installation's events go out one at a time, in the order they were recorded).
 */
async function readyEvents(em: EntityManager, now: Date, limit: number): Promise<IntegrationEventRecord[]> {
  const rows = await queryRows(
    em,
    sql<{ id: string }>`select e.id from integration_events e
      where e.state = 'pending' and e.next_attempt_at <= ${now}
        and not exists (select 1 from integration_events earlier
                         where earlier.installation_id = e.installation_id and earlier.state = 'pending' and earlier.sequence < e.sequence)
      order by e.sequence
      limit ${limit}`,
  );
  if (rows.length === 0) return [];
  return em.find(IntegrationEventRecord, { id: { $in: rows.map((row) => row.id) } }, { orderBy: { sequence: "asc" } });
}

/** What one attempt came to. */
interface Attempt {
  outcome: "success" | "retry" | "failed";
  trace: TraceLine[];
}

/** GitBook's runtime answers 406 to an event type the integration has no handler for: delivered, nothing to retry. */
function judge(status: number): "success" | "retry" | "failed" {
  if ((status >= 200 && status < 300) || status === 406) return "success";
  // A request the script refuses will be refused again; a server error or a limit may pass later.
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "failed";
  return "retry";
}

/** What the events of one batch need, read in one query per kind rather than per event. */
interface BatchContext {
  integrations: Map<string, Integration>;
  installations: Map<string, Installation>;
  targets: Map<string, TargetInstallation>;
  spaceCounts: Map<string, number>;
}

async function batchContext(em: EntityManager, events: readonly IntegrationEventRecord[]): Promise<BatchContext> {
  const ids = (pick: (event: IntegrationEventRecord) => string | null | undefined) => [
    ...new Set(events.map(pick).filter((id): id is string => typeof id === "string")),
  ];
  const integrations = await em.find(Integration, { id: { $in: ids((event) => event.integrationId) } });
  const installations = await em.find(Installation, { id: { $in: ids((event) => event.installationId) } });
  const targets = await em.find(TargetInstallation, { id: { $in: ids((event) => event.targetInstallationId) } });
  return {
    integrations: new Map(integrations.map((integration) => [integration.id, integration])),
    installations: new Map(installations.map((installation) => [installation.id, installation])),
    targets: new Map(targets.map((target) => [target.id, target])),
    spaceCounts: await spaceCounts(em, installations),
  };
}

async function attempt(deps: UseCaseDeps, event: IntegrationEventRecord, context: BatchContext): Promise<Attempt> {
  const at = () => deps.clock().toISOString();
  const integration = context.integrations.get(event.integrationId);
  if (!integration) return { outcome: "failed", trace: [{ level: "error", message: "the integration was deleted", timestamp: at() }] };
  const installation = event.installationId ? (context.installations.get(event.installationId) ?? null) : null;
  if (event.installationId && !installation && !event.type.endsWith("_deleted")) {
    return { outcome: "failed", trace: [{ level: "error", message: "the installation was removed before the event was delivered", timestamp: at() }] };
  }
  const target = event.targetInstallationId ? (context.targets.get(event.targetInstallationId) ?? null) : null;
  let environment: Record<string, unknown>;
  try {
    environment = await buildEnvironment(deps, deps.tokens, {
      integration,
      installation,
      target,
      spaceCount: installation ? (context.spaceCounts.get(installation.id) ?? 0) : 0,
    });
  } catch (error) {
    deps.logger.warn("could not prepare an integration event's environment; will retry", { eventId: event.id, err: error });
    return { outcome: "retry", trace: [{ level: "warn", message: "Imprint could not prepare the call (an API token); retrying", timestamp: at() }] };
  }
  const answer = await deps.scripts.call({ integration, organizationId: event.organizationId ?? null, event: event.payload, environment });
  const trace = traceLines(answer.logs);
  if (!answer.ok) return { outcome: "retry", trace: traceWithReason(answer.logs, answer.reason, deps.clock()) };
  const outcome = judge(answer.status);
  const note: TraceLine =
    answer.status === 406
      ? { level: "info", message: `the integration does not handle ${event.type} events (HTTP 406)`, timestamp: at() }
      : { level: outcome === "success" ? "info" : "error", message: `the integration answered HTTP ${answer.status}`, timestamp: at() };
  return { outcome, trace: [...trace, note] };
}

/**
 * Delivers what is ready, several installations at once and each installation's events in order;
 * a failed attempt is retried with exponential backoff, and after the last one the event is
 * recorded as `failed`. Answers whether it delivered anything (more may be ready).
 */
export async function deliverReadyEvents(em: EntityManager, deps: UseCaseDeps, signal: AbortSignal): Promise<boolean> {
  const { deliveryConcurrency, deliveryAttempts, deliveryBackoffMs } = deps.settings;
  const ready = await readyEvents(em, deps.clock(), deliveryConcurrency);
  if (ready.length === 0) return false;
  const context = await batchContext(em.fork(), ready);
  await Promise.all(
    ready.map(async (event) => {
      if (signal.aborted) return;
      const result = await attempt(deps, event, context);
      const attempts = event.attempts + 1;
      const now = deps.clock();
      let state: "pending" | "success" | "failed" = result.outcome === "retry" ? "pending" : result.outcome;
      const trace = [...event.trace, ...result.trace];
      if (state === "pending" && attempts >= deliveryAttempts) {
        state = "failed";
        trace.push({ level: "error", message: `gave up after ${attempts} attempts`, timestamp: now.toISOString() });
      } else if (state === "pending") {
        const delay = deliveryBackoffMs * 2 ** (attempts - 1);
        trace.push({ level: "warn", message: `attempt ${attempts} failed; retrying in ${delay} ms`, timestamp: now.toISOString() });
        event.nextAttemptAt = new Date(now.getTime() + delay);
      }
      event.attempts = attempts;
      event.state = state;
      event.trace = trace.slice(-TRACE_MAX_LINES);
      if (state !== "pending") event.finishedAt = now;
    }),
  );
  await em.flush();
  return true;
}
