import { handleEvents, isId, keyByAggregate, type ConsumerSpec } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { recordAuditEvents } from "../use-cases/audit/record-audit-events.js";
import { AUDIT_RULES, CONTEXT_EVENTS } from "./audit-rules.js";

/** The durable consumer that keeps the audit log from one context's events. */
export function auditConsumerName(context: keyof typeof CONTEXT_EVENTS): string {
  return `identity-audit-${context}`;
}

/**
 * The audit log's consumers, one per producing context (identity's own events included), each
 * reading every event of its context and recording those AUDIT_RULES names. The log is a set of
 * immutable facts keyed by event id (see recordAuditEvents): commutative, so any arrival order,
 * a duplicate or a replay ends the same, labels aside (as known when recorded; test/audit-log.test.ts,
 * "any delivery order"); the runtime also records each event as processed in the handler's transaction.
 */
export function auditEventConsumers(deps: Pick<UseCaseDeps, "clock" | "auditRetentionDays">): ConsumerSpec[] {
  const rules = new Map(AUDIT_RULES.map((rule) => [rule.contract.subject, rule]));
  return (Object.keys(CONTEXT_EVENTS) as (keyof typeof CONTEXT_EVENTS)[]).map((context) => {
    const audited = CONTEXT_EVENTS[context].filter((contract) => rules.has(contract.subject));
    return {
      context,
      consumer: auditConsumerName(context),
      filterSubject: `imprint.${context}.v1.>`,
      keyOf: keyByAggregate(audited),
      handler: handleEvents(audited, async (event, { em }) => {
        const rule = rules.get(event.subject)!;
        const changes = rule
          .changes(event.payload, event.organizationId)
          .map((change) => ({ ...change, organizationId: change.organizationId ?? event.organizationId ?? "" }))
          // An organization is named by an id; an event without one concerns none.
          .filter((change) => isId(change.organizationId) && change.target.id !== "");
        await recordAuditEvents(
          em,
          {
            id: event.id,
            type: event.type,
            occurredAt: new Date(event.occurredAt),
            organizationId: event.organizationId,
            actor: event.actor,
            // As the producer's JSON: timestamps as ISO 8601 text.
            payload: JSON.parse(JSON.stringify(event.payload)) as Record<string, unknown>,
            changes,
          },
          deps,
        );
      }),
    };
  });
}
