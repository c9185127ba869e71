import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, requireCaller, type CallerInput } from "@imprint/runtime";
import type { UseCaseDeps } from "../../deps.js";
import { checkRenderOutput } from "../../domain/platform/contentkit.js";
import { uiRenderEvent } from "../../domain/platform/events.js";
import { checkRenderRequest } from "../../domain/platform/render-request.js";
import { buildEnvironment } from "../shared/environment.js";
import { recordEndedEvent, traceWithReason } from "../shared/deliveries.js";
import { findVisibleKeptIntegration } from "../shared/integrations.js";
import { parseJsonObject } from "../shared/json.js";
import { resolveRenderPlace } from "../shared/render-context.js";

export interface RenderInput {
  caller: CallerInput | undefined;
  name: string;
  componentId: string;
  propsJson: string;
  stateJson: string;
  contextJson: string;
  actionJson: string;
}

export interface RenderOutput {
  /** GitBook's ContentKitRenderOutput, checked against GitBook's schema. */
  output: Record<string, unknown>;
  /** What the component asked for with `setCache`; "" for nothing. */
  cacheControl: string;
}

const TEXT = new TextDecoder();

/** The error message `@gitbook/runtime` answers with (`{"error": "…"}`), if the body is one. */
function scriptErrorMessage(body: Uint8Array): string | undefined {
  try {
    const parsed = JSON.parse(TEXT.decode(body)) as { error?: unknown };
    return typeof parsed.error === "string" ? parsed.error.slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Renders a ContentKit component: the integration's script gets GitBook's `ui_render` event for the
 * installation its context points at (or its tunnel, in development mode), and its answer leaves
 * only once it is valid ContentKit output. A script that fails (throws, loops, allocates without
 * bound, answers garbage) answers 502 with the reason, recorded as a failed event with its trace.
 */
export async function renderIntegrationUI(em: EntityManager, input: RenderInput, deps: UseCaseDeps): Promise<RenderOutput> {
  const caller = requireCaller(input.caller);
  const { integration } = await findVisibleKeptIntegration(deps, caller, input.name);
  const request = checkRenderRequest({
    componentId: input.componentId,
    props: parseJsonObject("props", input.propsJson),
    ...(input.stateJson ? { state: parseJsonObject("state", input.stateJson) } : {}),
    context: parseJsonObject("context", input.contextJson),
    ...(input.actionJson ? { action: parseJsonObject("action", input.actionJson) } : {}),
  });
  const { props, state, context, action } = request;
  const place = await resolveRenderPlace(deps, caller, integration, context);

  const eventId = randomUUID();
  const event = uiRenderEvent({
    eventId,
    installationId: place.installation.id,
    componentId: request.componentId,
    props,
    ...(state ? { state } : {}),
    context,
    ...(action ? { action } : {}),
    auth: { userId: caller.userId },
  });
  const environment = await buildEnvironment(deps, deps.tokens, {
    integration,
    installation: place.installation,
    target: place.target,
    spaceCount: place.spaceCount,
  });
  const answer = await deps.scripts.call({ integration, organizationId: place.organizationId, event, environment });

  const fail = async (reason: string, code: "upstream_failed" | "not_found" = "upstream_failed"): Promise<never> => {
    await recordEndedEvent(em, deps, {
      id: eventId,
      integrationId: integration.id,
      installationId: place.installation.id,
      organizationId: place.organizationId,
      targetInstallationId: place.target?.id ?? null,
      type: "ui_render",
      payload: event,
      state: "failed",
      trace: traceWithReason(answer.logs, reason, deps.clock()),
    });
    throw new AppError(code, reason);
  };

  if (!answer.ok) return fail(answer.reason);
  if (answer.status !== 200) {
    const message = scriptErrorMessage(answer.body);
    // @gitbook/runtime answers 404 for a component it does not have: the caller's mistake, not the script's.
    if (answer.status === 404) return fail(message ?? `Component ${input.componentId} not found`, "not_found");
    return fail(`the integration answered HTTP ${answer.status}${message ? `: ${message}` : ""}`);
  }
  let output: unknown;
  try {
    output = JSON.parse(TEXT.decode(answer.body));
  } catch {
    return fail("the integration's answer is not JSON");
  }
  const checked = checkRenderOutput(output);
  if (!checked.ok) return fail(`the integration's answer is not ContentKit output: ${checked.problem}`);
  const cacheControl = answer.headers.find(([name]) => name.toLowerCase() === "cache-control")?.[1] ?? "";
  return { output: output as Record<string, unknown>, cacheControl };
}
