import { defineEntity, p } from "@mikro-orm/postgresql";

export const EVENT_STATES = ["pending", "success", "failed"] as const;
export type EventState = (typeof EVENT_STATES)[number];

export interface TraceLine {
  message: string;
  timestamp: string;
  level: "debug" | "info" | "warn" | "error";
}

/**
 * One GitBook event for one integration (most for one installation): the payload sent, its
 * delivery state, and the log lines its handling wrote over every attempt. Events of one
 * installation are delivered in `sequence` order; `sourceEventId` (the domain event it came from)
 * makes recording idempotent.
 */
export const IntegrationEventRecordSchema = defineEntity({
  name: "IntegrationEventRecord",
  tableName: "integration_events",
  properties: {
    id: p.uuid().primary(),
    /** Delivery order: per installation, events go out in this order. */
    sequence: p.bigint("number").autoincrement().unique(),
    integrationId: p.uuid(),
    installationId: p.uuid().nullable(),
    organizationId: p.uuid().nullable(),
    /** The space or site installation the event concerns, for the script's environment. */
    targetInstallationId: p.uuid().nullable(),
    type: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    /** The domain event (or report) it came from, with the installation: recorded once. */
    sourceKey: p.string().length(200).unique(),
    state: p.string().length(16),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime(),
    trace: p.json<TraceLine[]>(),
    createdAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ["integrationId", "createdAt", "id"], name: "integration_events_integration_created_at_index" },
    { properties: ["state", "nextAttemptAt"], name: "integration_events_pending_index" },
    { properties: ["installationId", "sequence"], name: "integration_events_installation_sequence_index" },
  ],
});
export class IntegrationEventRecord extends IntegrationEventRecordSchema.class {}
IntegrationEventRecordSchema.setClass(IntegrationEventRecord);
